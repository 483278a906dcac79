/**
 * Anonymous requests that must cost nobody else anything (issue 48, docs/edge.md#hosts-and-targets):
 * the edge and `next start` as `npm start` runs them, Postgres. An invalid Host, a backslash or a
 * malformed escape is refused 400 with a reason; none of them damages the connections, slots or
 * queues other clients share, so the dashboard keeps answering afterwards.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { startIngest } from "./harness/stack";
import { createSource, type TestSource } from "./harness/tracking";

let s: IngestStack;
let src: TestSource;
let port: number;
beforeAll(async () => {
  s = await startIngestStack("edge-hostile");
  src = await createSource(s.api, "edge-hostile");
  port = Number(new URL(s.ingest.url).port);
});
afterAll(() => s?.stop());

/** One request on a connection of its own: the status and body of the answer, or null when none came. */
function exchange(bytes: string, to = port, idleMs = 5_000): Promise<{ status: number | null; head: string; body: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(to, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      const [head, ...body] = text.split("\r\n\r\n");
      resolve({ status: m ? Number(m[1]) : null, head: head.toLowerCase(), body: body.join("\r\n\r\n") });
    });
    socket.write(bytes);
  });
}

const get = (target: string, host: string, to = port) =>
  exchange(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, to);
const header = (head: string, name: string) => new RegExp(`\r\n${name}: ([^\r]*)`).exec(head)?.[1] ?? null;

/** The dashboard answers: more requests in a row than the edge keeps connections to the web app. */
async function expectDashboardAnswers() {
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    // Answered by the web app, which asked Postgres (with no worker running its queue check says 503).
    const health = await fetch(`${s.ingest.url}/api/health`, { signal: AbortSignal.timeout(10_000) });
    expect(await health.json()).toMatchObject({ database: "ok" });
    expect(performance.now() - started).toBeLessThan(2_000);
  }
  const login = await fetch(`${s.ingest.url}/login`, { signal: AbortSignal.timeout(10_000), redirect: "manual" });
  expect(login.status).toBeLessThan(400);
}

describe("a Host that is not a host", () => {
  it("twenty of them, on any web path, leave the dashboard answering; each is refused 400 with a reason", async () => {
    const hosts = ["[", "[::1", "a[b", "]", "a b", 'a"b', "a,b", "a\\b", "a:99999", "a:b", "@a", "a/b", "%61"];
    const answers = [];
    for (let i = 0; i < 20; i++) {
      const host = hosts[i % hosts.length];
      answers.push({ host, ...(await get(i % 2 ? "/api/health" : "/login", host)) });
    }
    await expectDashboardAnswers();
    for (const { host, status, body } of answers) {
      expect({ host, status }).toEqual({ host, status: 400 });
      expect(JSON.parse(body)).toMatchObject({ error: { code: "bad_request", message: expect.stringMatching(/Host/) } });
    }
  });

  it("is refused 400 by the settings document, never written into apiHost", async () => {
    for (const host of ['a"b', "a,b", "[", "a b"]) {
      const answer = await get(`/v1/projects/${src.writeKey}/settings`, host);
      expect({ host, status: answer.status }).toEqual({ host, status: 400 });
    }
  });

  it("a valid Host is passed on: IPv6 literals, ports, names with a trailing dot", async () => {
    for (const host of ["[::1]", "[::1]:3000", "127.0.0.1:80", "eventrail.example.", "EVENTRAIL.example:443", "a_b.example"]) {
      // The web app's own answer (a redirect to first-run setup, or the page).
      const answer = await get("/login", host);
      expect({ host, passed: answer.status !== null && answer.status < 400 }).toEqual({ host, passed: true });
    }
  });
});

describe("targets the web app cannot take", () => {
  it("a backslash in the path and a malformed escape in the path or the query are 400 with a reason", async () => {
    const targets = [
      "/api\\health",
      "/\\\\evil.example/",
      "/api/logs?messageId=%zz",
      "/api/logs?messageId=%",
      "/login?x=%E0%A4%A",
      "/%zz/login",
    ];
    for (const target of targets) {
      const answer = await get(target, "eventrail.example");
      expect({ target, status: answer.status }).toEqual({ target, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "bad_request", message: expect.any(String) } });
    }
    expect(s.ingest.output()).not.toMatch(/"level":50/);
    await expectDashboardAnswers();
  });
});

describe("the settings document", () => {
  it("without EVENTRAIL_PUBLIC_URL: the validated Host, and a cache that keys on it", async () => {
    const res = await get(`/v1/projects/${src.writeKey}/settings`, "events.example:8443");
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.body) as { integrations: { "Segment.io": { apiHost: string } } };
    expect(doc.integrations["Segment.io"].apiHost).toBe("events.example:8443/v1");
    expect(header(res.head, "vary") ?? "").toMatch(/host/);
    expect(header(res.head, "cache-control") ?? "").not.toMatch(/public/);
  });

  it("with EVENTRAIL_PUBLIC_URL: the configured URL whatever the Host, cacheable by all", async () => {
    const configured = await startIngest(s.stack.databaseUrl, {
      webUrl: s.stack.app.url,
      env: { EVENTRAIL_PUBLIC_URL: "https://events.eventrail.example" },
    });
    try {
      for (const host of ["attacker.example", 'a"b']) {
        const res = await get(`/v1/projects/${src.writeKey}/settings`, host, Number(new URL(configured.url).port));
        expect(res.status).toBe(200);
        const doc = JSON.parse(res.body) as { integrations: { "Segment.io": { apiHost: string; protocol: string } } };
        expect(doc.integrations["Segment.io"]).toMatchObject({ apiHost: "events.eventrail.example/v1", protocol: "https" });
        expect(header(res.head, "cache-control")).toBe("public, max-age=60");
      }
    } finally {
      await configured.stop();
    }
  });
});

describe("a body without a write key", () => {
  it("is refused 401 without being parsed, however deeply it nests; a key in the body still works", async () => {
    const deep = `{"batch":[${"[".repeat(200_000)}${"]".repeat(200_000)}]}`;
    const refused = await fetch(`${s.ingest.url}/v1/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: deep,
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "unauthorized" });
    const notJson = await fetch(`${s.ingest.url}/v1/batch`, { method: "POST", body: '{"batch": [' });
    expect(notJson.status).toBe(401);
    const call = { type: "track", event: "E", userId: "u", messageId: "body-key-1" };
    const inBody = await fetch(`${s.ingest.url}/v1/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ batch: [{ ...call, writeKey: "not-this-one" }], writeKey: src.writeKey }),
    });
    expect(inBody.status).toBe(200);
    const stored = await s.db.query("SELECT message_id FROM messages WHERE source_id = $1 AND message_id = 'body-key-1'", [src.id]);
    expect(stored.rowCount).toBe(1);
  });
});
