import { describe, expect, it } from "vitest";
import { normaliseMessage, type BatchDefaults } from "./normalise";
import { parseExactJson } from "../platform/exact-json";
import type { MessageType } from "./limits";

/** What body.ts measures for a client that sends JSON.stringify's output; null (unmeasured) if it cannot. */
const sentBytes = (raw: unknown): number | null => {
  try {
    return Buffer.byteLength(JSON.stringify(raw) ?? "", "utf8");
  } catch {
    return null;
  }
};

const RECEIVED = Date.parse("2026-11-21T15:00:00.000Z");
const none: BatchDefaults = { context: null, integrations: null, sentAt: null, sentAtIso: null };
const batchSentAt = (iso: string): BatchDefaults => ({ ...none, sentAt: Date.parse(iso), sentAtIso: new Date(iso).toISOString() });

function run(
  raw: unknown,
  opts: { endpointType?: MessageType | null; defaults?: BatchDefaults; nonFinite?: boolean; clientAddress?: string } = {},
) {
  return normaliseMessage({
    nonFinite: opts.nonFinite,
    clientAddress: opts.clientAddress,
    raw,
    index: 3,
    endpointType: opts.endpointType ?? null,
    defaults: opts.defaults ?? none,
    receivedAt: { ms: RECEIVED, iso: new Date(RECEIVED).toISOString() },
    sentBytes: sentBytes(raw),
    newMessageId: () => "generated-id",
  });
}
const ok = (raw: unknown, opts?: Parameters<typeof run>[1]) => {
  const r = run(raw, opts);
  if (!r.ok) throw new Error(`rejected: ${r.rejection.reason}`);
  return r.message;
};
const reason = (raw: unknown, opts?: Parameters<typeof run>[1]) => {
  const r = run(raw, opts);
  if (r.ok) throw new Error("accepted");
  return r.rejection.reason;
};

/** A message as body.ts parses it from text. */
const parsed = (text: string) => {
  const { value, nonFinite } = parseExactJson(text);
  return [value, { nonFinite }] as const;
};

describe("normaliseMessage: exact numbers and context.ip", () => {
  it("keeps integers beyond 2^53 exact in the stored payload, and as ids", () => {
    const m = ok(
      ...parsed(
        '{"type":"track","event":"E","userId":9007199254740993,"messageId":18446744073709551615,"properties":{"order":9007199254740993}}',
      ),
    );
    expect(m.userId).toBe("9007199254740993");
    expect(m.messageId).toBe("18446744073709551615");
    expect(m.payloadJson).toContain('"properties":{"order":9007199254740993}');
    expect(m.payloadJson).toContain('"userId":"9007199254740993"');
  });

  it("rejects a number past a double's range with where it is", () => {
    expect(reason(...parsed('{"type":"track","event":"E","userId":"u","messageId":1e400}'))).toBe(
      "messageId is 1e400, which is not a finite number",
    );
    expect(reason(...parsed('{"type":"track","event":"E","userId":"u","properties":{"total":-1E+400}}'))).toBe(
      "properties.total is -1E+400, which is not a finite number",
    );
    const r = run(...parsed('{"type":"track","event":"E","userId":"u","messageId":1e400}'));
    expect(r.ok ? null : r.rejection.messageId).toBe("1e400");
  });

  it("sets context.ip from the client address when the call carries none, and keeps the call's own", () => {
    const call = { type: "track", event: "E", userId: "u", context: { library: { name: "analytics.js" } } };
    expect(ok(call, { clientAddress: "203.0.113.9" }).payload.context).toEqual({ library: { name: "analytics.js" }, ip: "203.0.113.9" });
    expect(ok({ ...call, context: { ip: "198.51.100.1" } }, { clientAddress: "203.0.113.9" }).payload.context).toEqual({
      ip: "198.51.100.1",
    });
    expect(ok({ type: "track", event: "E", userId: "u" }, { clientAddress: "::1" }).payload.context).toEqual({ ip: "::1" });
    expect(ok(call).payload.context).toEqual({ library: { name: "analytics.js" } });
  });
});

describe("normaliseMessage", () => {
  it("builds the Segment-shaped payload of a track call", () => {
    const m = ok({
      type: "track",
      event: "Order Completed",
      userId: "u1",
      anonymousId: "a1",
      properties: { total: 30 },
      context: { ip: "1.2.3.4" },
      integrations: { Webhooks: true },
      messageId: "m-1",
      timestamp: "2026-11-21T14:59:00+0000",
      _metadata: { nodeVersion: "20" },
      writeKey: "never-stored",
    });
    expect(m).toMatchObject({ type: "track", messageId: "m-1", userId: "u1", anonymousId: "a1", event: "Order Completed" });
    expect(m.payload).toEqual({
      type: "track",
      messageId: "m-1",
      userId: "u1",
      anonymousId: "a1",
      event: "Order Completed",
      properties: { total: 30 },
      context: { ip: "1.2.3.4" },
      integrations: { Webhooks: true },
      timestamp: "2026-11-21T14:59:00.000Z",
      originalTimestamp: "2026-11-21T14:59:00.000Z",
      receivedAt: "2026-11-21T15:00:00.000Z",
    });
  });

  it("corrects the timestamp by the client's clock skew when sentAt is known", () => {
    const m = ok({ type: "identify", userId: "u", timestamp: "2026-11-21T16:00:00Z" }, { defaults: batchSentAt("2026-11-21T16:00:10Z") });
    expect(m.timestamp).toBe("2026-11-21T14:59:50.000Z");
    expect(m.originalTimestamp).toBe("2026-11-21T16:00:00.000Z");
    expect(m.sentAt).toBe("2026-11-21T16:00:10.000Z");
    // A message's own sentAt wins over the batch's.
    const own = ok(
      { type: "identify", userId: "u", timestamp: "2026-11-21T16:00:00Z", sentAt: "2026-11-21T16:00:00Z" },
      { defaults: batchSentAt("1970-01-01T00:00:00Z") },
    );
    expect(own.timestamp).toBe("2026-11-21T15:00:00.000Z");
  });

  it("uses the arrival time without a client timestamp, and generates a messageId", () => {
    const m = ok({ type: "page", anonymousId: "a", name: "Home", category: "Docs", properties: { path: "/" } });
    expect(m.timestamp).toBe("2026-11-21T15:00:00.000Z");
    expect(m.originalTimestamp).toBeNull();
    expect(m.messageId).toBe("generated-id");
    expect(m.payload).toMatchObject({ name: "Home", category: "Docs", properties: { path: "/" } });
  });

  it("merges batch context and integrations, the message's own keys winning", () => {
    const m = ok(
      { type: "track", userId: "u", event: "E", context: { locale: "fr" }, integrations: { Webhooks: false } },
      { defaults: { ...none, context: { locale: "en", library: { name: "go" } }, integrations: { All: false, Webhooks: true } } },
    );
    expect(m.payload.context).toEqual({ locale: "fr", library: { name: "go" } });
    expect(m.integrations).toEqual({ All: false, Webhooks: false });
  });

  it("lets the endpoint decide the type of a single call", () => {
    expect(ok({ userId: "u", traits: { plan: "pro" } }, { endpointType: "identify" }).type).toBe("identify");
    expect(ok({ type: "track", userId: "u", groupId: "g" }, { endpointType: "group" }).payload).toMatchObject({
      type: "group",
      groupId: "g",
    });
  });

  it("keeps group and alias fields under Segment's names", () => {
    expect(ok({ type: "group", userId: "u", groupId: 42, traits: { name: "Acme" } }).payload).toMatchObject({
      groupId: "42",
      traits: { name: "Acme" },
    });
    expect(ok({ type: "alias", userId: "new", previousId: "old" }).payload).toMatchObject({ userId: "new", previousId: "old" });
    expect(ok({ type: "screen", userId: 7, name: "Home" }).userId).toBe("7");
  });

  it.each([
    [{ type: "track", event: "E" }, /userId or anonymousId is required/],
    [{ type: "track", userId: "", anonymousId: null, event: "E" }, /userId or anonymousId is required/],
    [{ type: "track", userId: "u" }, /track requires an event name/],
    [{ type: "track", userId: "u", event: "" }, /track requires an event name/],
    [{ type: "group", userId: "u" }, /group requires a groupId/],
    [{ type: "alias", userId: "u" }, /alias requires a previousId/],
    [{ type: "purchase", userId: "u" }, /unknown type "purchase"/],
    [{ userId: "u" }, /type is missing/],
    [{ type: "track", userId: { id: 1 }, event: "E" }, /userId must be a string, got an object/],
    [{ type: "track", userId: "u", event: 5 }, /event must be a string, got number 5/],
    [{ type: "track", userId: "u", event: "E", properties: [1] }, /properties must be a JSON object, got an array/],
    [{ type: "identify", userId: "u", traits: "pro" }, /traits must be a JSON object/],
    [{ type: "identify", userId: "u", context: 1 }, /context must be a JSON object/],
    [{ type: "page", userId: "u", name: 3 }, /name must be a string/],
    [{ type: "identify", userId: "u", timestamp: "yesterday" }, /timestamp "yesterday" is not a valid ISO 8601 date-time/],
    [{ type: "identify", userId: "u", timestamp: 1732201550 }, /timestamp must be an ISO 8601 string/],
    [{ type: "identify", userId: "u", sentAt: "2026-02-30T00:00:00Z" }, /sentAt/],
    [{ type: "identify", userId: "u", messageId: "x".repeat(101) }, /messageId is 101 characters; the limit is 100/],
    [{ type: "identify", userId: "u", messageId: { a: 1 } }, /messageId must be a string/],
    [{ type: "identify", userId: "u".repeat(600) }, /userId is longer than 512 bytes/],
    [{ type: "identify", userId: "u", traits: { blob: "x".repeat(33_000) } }, /the limit is 32 KB per message/],
    [{ type: "identify", userId: "u", traits: { bad: "a\u0000b" } }, /NUL character/],
    [{ type: "identify", userId: "u", traits: { bad: "\ud800" } }, /unpaired UTF-16 surrogate/],
    ["a string", /message must be a JSON object, got string/],
    [null, /message must be a JSON object, got null/],
    [[1, 2], /message must be a JSON object, got an array/],
  ])("rejects %j", (raw, expected) => {
    expect(reason(raw)).toMatch(expected);
  });

  it.each([
    ["0000-06-01T00:00:00Z", /timestamp "0000-06-01T00:00:00Z" is outside the years 0001–9999/],
    ["0001-01-01T00:00:00+01:00", /outside the years 0001–9999/],
    ["9999-12-31T23:59:59-23:59", /outside the years 0001–9999/],
  ])("rejects the timestamp %s (issue 13.4: Postgres would refuse the whole batch)", (timestamp, expected) => {
    expect(reason({ type: "track", userId: "u", event: "E", timestamp })).toMatch(expected);
  });

  it("rejects a clock skew that pushes the corrected time out of the years 0001–9999, and keeps the edges", () => {
    const skew = /corrected for the client's clock skew .* outside the years 0001–9999/;
    expect(reason({ type: "track", userId: "u", event: "E", timestamp: "0001-06-01T00:00:00Z", sentAt: "9999-06-01T00:00:00Z" })).toMatch(
      skew,
    );
    expect(reason({ type: "track", userId: "u", event: "E", timestamp: "9999-06-01T00:00:00Z", sentAt: "0001-06-01T00:00:00Z" })).toMatch(
      skew,
    );
    expect(ok({ type: "track", userId: "u", event: "E", timestamp: "0001-01-01T00:00:00Z" }).timestamp).toBe("0001-01-01T00:00:00.000Z");
    expect(ok({ type: "track", userId: "u", event: "E", timestamp: "9999-12-31T23:59:59.999Z" }).timestamp).toBe(
      "9999-12-31T23:59:59.999Z",
    );
  });

  it("applies the 32 KB limit to the message as sent, not after the server adds fields (issue 13.3)", () => {
    // 32,700 bytes as sent; messageId, timestamp, receivedAt, context and integrations take it past 32 KB.
    const raw = { type: "track", userId: "u", event: "E", properties: { blob: "x".repeat(32_700 - 66) } };
    expect(Buffer.byteLength(JSON.stringify(raw))).toBe(32_700);
    const m = ok(raw);
    expect(Buffer.byteLength(m.payloadJson)).toBeGreaterThan(32 * 1024);
  });

  it("rejects nesting deeper than 64 levels, however deep", () => {
    const nest = (n: number) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = { v };
      return v;
    };
    expect(ok({ type: "identify", userId: "u", traits: nest(60) }).type).toBe("identify");
    expect(reason({ type: "identify", userId: "u", traits: nest(70) })).toMatch(/nested 71 levels deep; the limit is 64/);
    expect(reason({ type: "identify", userId: "u", traits: nest(200_000) })).toMatch(/nested more than 64 levels/);
  });

  it("reports the index, type and messageId of a rejection", () => {
    const r = run({ type: "track", userId: "u", messageId: "m-9" });
    expect(r).toMatchObject({
      ok: false,
      rejection: { index: 3, type: "track", messageId: "m-9", reason: "track requires an event name" },
    });
  });

  it("does not take a backslash-u in text for a NUL", () => {
    expect(ok({ type: "identify", userId: "u", traits: { path: "C:\\u0000dir" } }).type).toBe("identify");
  });
});
