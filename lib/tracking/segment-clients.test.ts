import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { answerBrowserBundle, answerBrowserChunk, apiHostOf, settingsDocument } from "./segment-clients";

const umd = path.join(process.cwd(), "node_modules", "@segment", "analytics-next", "dist", "umd");

describe("settingsDocument", () => {
  it("points Segment.io back at this install, host and path without the scheme, as Segment writes apiHost", () => {
    const doc = settingsDocument("wk_123", "https://events.example.com");
    expect(doc.integrations["Segment.io"]).toMatchObject({ apiKey: "wk_123", apiHost: "events.example.com/v1", protocol: "https" });
    expect(Object.keys(doc.integrations)).toEqual(["Segment.io"]);
    expect(doc).toMatchObject({ analyticsNextEnabled: true, edgeFunction: {}, remotePlugins: [], metrics: { sampleRate: 0 } });
    expect(doc.plan.track.__default.enabled).toBe(true);
  });

  it("keeps a port and a path prefix, and says http for an http install", () => {
    expect(apiHostOf("http://127.0.0.1:3000")).toEqual({ apiHost: "127.0.0.1:3000/v1", protocol: "http" });
    expect(apiHostOf("https://example.com/eventrail/")).toEqual({ apiHost: "example.com/eventrail/v1", protocol: "https" });
  });
});

describe("answerBrowserBundle / answerBrowserChunk", () => {
  it("serves the installed package's standalone bundle as JavaScript, told its CDN by its own script tag", () => {
    const a = answerBrowserBundle();
    expect(a.status).toBe(200);
    expect(a.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(a.headers["cache-control"]).toBe("public, max-age=3600");
    expect(a.body.endsWith(fs.readFileSync(path.join(umd, "standalone.js"), "utf8"))).toBe(true);
    expect(a.body.split("\n")[0]).toContain("document.currentScript");
  });

  it("serves the chunks it loads lazily, cached for good, and nothing else from the folder", () => {
    const chunk = fs.readdirSync(umd).find((f) => /^queryString\.bundle\.[0-9a-f]+\.js$/.test(f))!;
    const a = answerBrowserChunk(chunk);
    expect(a.status).toBe(200);
    expect(a.body).toBe(fs.readFileSync(path.join(umd, chunk), "utf8"));
    expect(a.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    for (const file of [`${chunk}.map`, "index.js", "../package.json", "standalone.js", "nope.bundle.0a.js"]) {
      const refused = answerBrowserChunk(file);
      expect(refused.status, file).toBe(404);
      expect(JSON.parse(refused.body)).toMatchObject({ code: "not_found" });
    }
  });
});
