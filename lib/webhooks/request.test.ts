import { describe, expect, it } from "vitest";
import { buildRequest, maskHeaders } from "./request";
import { isReservedHeader } from "./rules";
import { xSignature } from "./signing";

const msg = {
  type: "track",
  messageId: "m-1",
  userId: "u",
  anonymousId: null,
  timestamp: "2026-01-01T00:00:00.000Z",
  receivedAt: "2026-01-01T00:00:00.000Z",
  sentAt: null,
  payload: { event: "E" },
};

describe("buildRequest", () => {
  it("sets our headers, the static ones, and X-Signature only with a secret", () => {
    const dest = { headers: [{ name: "X-Team", value: "growth" }], sharedSecret: "k", standardWebhooks: false, standardSecret: null };
    const r = buildRequest(dest, msg, new Date());
    expect(r.headers).toMatchObject({ "content-type": "application/json", "user-agent": "Eventrail.io/1.0", "X-Team": "growth" });
    expect(r.headers["x-signature"]).toBe(xSignature("k", r.body));
    expect(buildRequest({ ...dest, sharedSecret: null }, msg, new Date()).headers["x-signature"]).toBeUndefined();
    expect(r.headers["webhook-signature"]).toBeUndefined();
  });

  it("never lets a stored reserved header override ours", () => {
    const r = buildRequest({ headers: [{ name: "User-Agent", value: "evil" }], sharedSecret: null, standardWebhooks: false, standardSecret: null }, msg, new Date());
    expect(r.headers["user-agent"]).toBe("Eventrail.io/1.0");
    expect(r.headers["User-Agent"]).toBeUndefined();
  });

  it("adds Standard Webhooks headers when enabled", () => {
    const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
    const r = buildRequest({ headers: [], sharedSecret: null, standardWebhooks: true, standardSecret: secret }, msg, new Date(1_700_000_000_000));
    expect(r.headers["webhook-id"]).toBe("m-1");
    expect(r.headers["webhook-timestamp"]).toBe("1700000000");
    expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });
});

describe("reserved and masked headers", () => {
  it("refuses reserved names case-insensitively", () => {
    for (const n of ["Content-Type", "user-agent", "X-SIGNATURE", "Content-Length", "host", "Webhook-Id", "webhook-timestamp", "WEBHOOK-SIGNATURE"])
      expect(isReservedHeader(n)).toBe(true);
    expect(isReservedHeader("X-Api-Version")).toBe(false);
  });

  it("masks credential-looking custom values and keeps the rest", () => {
    const masked = maskHeaders({
      Authorization: "Bearer abcdefghijklmnopqrstuvwxyz",
      "X-Api-Key": "short",
      "X-Team": "growth",
      "x-signature": "deadbeef",
      "content-type": "application/json",
    });
    expect(masked.Authorization).toBe("••••wxyz");
    expect(masked["X-Api-Key"]).toBe("••••");
    expect(masked["X-Team"]).toBe("growth");
    expect(masked["x-signature"]).toBe("deadbeef");
  });
});
