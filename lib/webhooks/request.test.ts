import { describe, expect, it } from "vitest";
import { buildRequest, maskHeaders, prepareSigning, webhookIdOf } from "./request";
import { isReservedHeader } from "./rules";
import { standardWebhooksHeaders, xSignature } from "./signing";

const at = (now: Date) => ({ now, webhookId: webhookIdOf("0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d") });
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
    const r = buildRequest(dest, msg, at(new Date()));
    expect(r.headers).toMatchObject({ "content-type": "application/json", "user-agent": "Eventrail.io/1.0", "X-Team": "growth" });
    expect(r.headers["x-signature"]).toBe(xSignature("k", r.body));
    expect(buildRequest({ ...dest, sharedSecret: null }, msg, at(new Date())).headers["x-signature"]).toBeUndefined();
    expect(r.headers["webhook-signature"]).toBeUndefined();
  });

  it("never lets a stored reserved header override ours", () => {
    const r = buildRequest(
      { headers: [{ name: "User-Agent", value: "evil" }], sharedSecret: null, standardWebhooks: false, standardSecret: null },
      msg,
      at(new Date()),
    );
    expect(r.headers["user-agent"]).toBe("Eventrail.io/1.0");
    expect(r.headers["User-Agent"]).toBeUndefined();
  });

  it("adds Standard Webhooks headers when enabled", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const r = buildRequest(
      { headers: [], sharedSecret: null, standardWebhooks: true, standardSecret: secret },
      msg,
      at(new Date(1_700_000_000_000)),
    );
    // The message's row id, not the client's messageId (unique only per source): issue 13.8.
    expect(r.headers["webhook-id"]).toBe("msg_0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d");
    expect(r.headers["webhook-timestamp"]).toBe("1700000000");
    expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it("signs Standard Webhooks whenever its secret is set, whatever the old flag says; never without one", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const on = buildRequest({ headers: [], sharedSecret: null, standardWebhooks: false, standardSecret: secret }, msg, at(new Date()));
    expect(on.headers["webhook-signature"]).toMatch(/^v1,/);
    const off = buildRequest({ headers: [], sharedSecret: null, standardWebhooks: true, standardSecret: null }, msg, at(new Date()));
    expect(off.headers).not.toHaveProperty("webhook-signature");
  });
});

describe("headers as sent and logged", () => {
  it("keeps the stored headers' order, then ours, then the signatures, each request on its own", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const prepared = prepareSigning({
      headers: [
        { name: "Authorization", value: "Bearer abcdefghijklmnopqrstuvwxyz" },
        { name: "X-Team", value: "growth" },
      ],
      sharedSecret: "k",
      standardWebhooks: true,
      standardSecret: secret,
    });
    const order = [
      "Authorization",
      "X-Team",
      "content-type",
      "user-agent",
      "x-signature",
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ];
    const now = at(new Date(1_700_000_000_000));
    const a = buildRequest(prepared, msg, now);
    const b = buildRequest(prepared, { ...msg, messageId: "m-2" }, now);
    for (const r of [a, b]) {
      expect(Object.keys(r.headers)).toEqual(order);
      expect(Object.keys(r.loggedHeaders)).toEqual(order);
      expect(r.headers["x-signature"]).toBe(xSignature("k", r.body));
      expect(r.headers).toEqual({
        ...r.headers,
        ...standardWebhooksHeaders({ secret, id: r.headers["webhook-id"], timestampSeconds: 1_700_000_000, body: r.body }),
      });
      expect(r.loggedHeaders).toEqual(maskHeaders(r.headers));
    }
    expect(a.headers["webhook-signature"]).not.toBe(b.headers["webhook-signature"]);
    expect(a.headers.Authorization).toBe("Bearer abcdefghijklmnopqrstuvwxyz");
    expect(a.loggedHeaders.Authorization).toBe("••••wxyz");
  });
});

describe("prepareSigning", () => {
  it("gives the same request as the settings themselves, with the log's headers masked as maskHeaders does", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const dest = {
      headers: [
        { name: "X-Api-Key", value: "key-0123456789abcdef-wxyz" },
        { name: "Host", value: "evil" },
      ],
      sharedSecret: "k",
      standardWebhooks: true,
      standardSecret: secret,
    };
    const now = at(new Date(1_700_000_000_000));
    const prepared = prepareSigning(dest);
    const a = buildRequest(prepared, msg, now);
    const b = buildRequest(dest, msg, now);
    expect(a).toEqual(b);
    expect(Object.keys(a.headers)).toEqual(Object.keys(b.headers));
    expect(a.loggedHeaders).toEqual(maskHeaders(a.headers));
    expect(Object.keys(a.loggedHeaders)).toEqual(Object.keys(a.headers));
    expect(a.loggedHeaders["X-Api-Key"]).toBe("••••wxyz");
    expect(a.loggedHeaders["x-signature"]).toBe(xSignature("k", a.body));
    // One prepared destination serves many requests without carrying one's signature into the next.
    const other = buildRequest(prepared, { ...msg, messageId: "m-2" }, now);
    expect(other.headers["x-signature"]).toBe(xSignature("k", other.body));
    expect(other.headers["x-signature"]).not.toBe(a.headers["x-signature"]);
    expect(prepared.headers["x-signature"]).toBeUndefined();
  });
});

describe("reserved and masked headers", () => {
  it("refuses reserved names case-insensitively", () => {
    for (const n of [
      "Content-Type",
      "user-agent",
      "X-SIGNATURE",
      "Content-Length",
      "host",
      "Webhook-Id",
      "webhook-timestamp",
      "WEBHOOK-SIGNATURE",
    ])
      expect(isReservedHeader(n)).toBe(true);
    expect(isReservedHeader("X-Api-Version")).toBe(false);
  });

  it("masks every custom value (they are write-only) and keeps ours", () => {
    const masked = maskHeaders({
      Authorization: "Bearer abcdefghijklmnopqrstuvwxyz",
      "X-Api-Key": "short",
      "X-Team": "growth",
      "x-signature": "deadbeef",
      "content-type": "application/json",
    });
    expect(masked.Authorization).toBe("••••wxyz");
    expect(masked["X-Api-Key"]).toBe("••••");
    expect(masked["X-Team"]).toBe("••••");
    expect(masked["x-signature"]).toBe("deadbeef");
    expect(masked["content-type"]).toBe("application/json");
  });

  it("never sends a stored header that is connection-level or malformed (rows saved before the rules)", () => {
    const headers = [
      { name: "Transfer-Encoding", value: "chunked" },
      { name: "Connection", value: "close" },
      { name: "content-encoding", value: "gzip" },
      { name: "X Bad", value: "1" },
      { name: "X-Ctl", value: "a\u0001b" },
      { name: "X-Snow", value: "☃" },
      { name: "X-Sep", value: "a\u2028b" },
      { name: "X-Team", value: "growth\tok" },
    ];
    const r = buildRequest({ headers, sharedSecret: null, standardWebhooks: false, standardSecret: null }, msg, at(new Date()));
    expect(Object.keys(r.headers).sort()).toEqual(["X-Team", "content-type", "user-agent"]);
  });
});
