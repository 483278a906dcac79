import { describe, expect, it } from "vitest";
import { alertNotice, type AlertEvent, slackText } from "./messages";

const hostile: AlertEvent = {
  kind: "opened",
  workspaceId: "w",
  destinationId: "d",
  destinationName: "<!channel> Orders <https://evil.example/login|Re-enable here> & more",
  url: "https://hooks.example/in?a=1&b=<2>",
  reason: "failing",
  failingSince: new Date("2026-01-01T00:00:00Z"),
  successRate: null,
  lastError: "HTTP 500: <@U024BE7LH> <!here>",
  now: new Date("2026-01-01T00:16:00Z"),
};

describe("slackText", () => {
  it("escapes &, < and > so that no mention, channel ping or disguised link survives (issue 38)", () => {
    const text = slackText(alertNotice(hostile, "https://eventrail.example/destinations/d?x=1&y=2").text);
    expect(text).not.toMatch(/[<>]/);
    // Every & left is the start of one of the three escapes.
    expect(text.replace(/&(amp|lt|gt);/g, "")).not.toContain("&");
    expect(text).toContain("&lt;!channel&gt; Orders &lt;https://evil.example/login|Re-enable here&gt; &amp; more");
    expect(text).toContain("https://hooks.example/in?a=1&amp;b=&lt;2&gt;");
    expect(text).toContain("(last error: HTTP 500: &lt;@U024BE7LH&gt; &lt;!here&gt;)");
  });

  it("reads back as the plain text when Slack unescapes it", () => {
    const plain = alertNotice(hostile, null).text;
    const unescaped = slackText(plain).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    expect(unescaped).toBe(plain);
    // Text already holding an entity is escaped again, not taken as one.
    expect(slackText("&lt;!channel&gt;")).toBe("&amp;lt;!channel&amp;gt;");
  });

  it("leaves the email's plain text as it is", () => {
    expect(alertNotice(hostile, null).text).toContain("<!channel> Orders <https://evil.example/login|Re-enable here> & more");
  });
});
