import { describe, expect, it } from "vitest";
import { alertNotice, type AlertEvent, certificateEnd, slackText } from "./messages";

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

describe("certificate notices (docs/alerts.md#certificates)", () => {
  const now = new Date("2026-12-06T12:00:00Z");
  it("says when a client certificate ends, in days from now, or that it has ended", () => {
    expect(certificateEnd(new Date("2026-12-19T13:00:00Z"), now)).toBe("expires on 2026-12-19 (in 13 days)");
    expect(certificateEnd(new Date("2026-12-07T11:00:00Z"), now)).toBe("expires on 2026-12-07 (within a day)");
    expect(certificateEnd(new Date("2026-12-07T13:00:00Z"), now)).toBe("expires on 2026-12-07 (in 1 day)");
    expect(certificateEnd(new Date("2026-12-01T00:00:00Z"), now)).toBe("expired on 2026-12-01");
  });
  it("names the destination, the certificate and what to do; a replacement says when the new one ends", () => {
    const e: AlertEvent = {
      ...hostile,
      destinationName: "Orders",
      url: "https://hooks.example/in",
      reason: "certificate",
      lastError: null,
      failingSince: null,
      certificate: { subject: "CN=eventrail", expiresAt: new Date("2026-12-16T12:00:00Z") },
      now,
    };
    expect(alertNotice(e, null)).toEqual({
      subject: "Client certificate expiring: Orders",
      text: 'Eventrail: destination "Orders" at https://hooks.example/in sends the client certificate CN=eventrail, which expires on 2026-12-16 (in 10 days); its endpoint will refuse deliveries once it has ended. Replace it in the destination\'s Mutual TLS section.',
    });
    expect(alertNotice({ ...e, kind: "recovered" }, null).subject).toBe("Client certificate replaced: Orders");
  });
});
