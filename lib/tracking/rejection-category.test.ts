import { describe, expect, it } from "vitest";
import { normaliseMessage } from "./normalise";
import { parseExactJson } from "../platform/exact-json";
import { REJECTION_CATEGORIES, rejectionCategory } from "./rejection-category";

/** What body.ts measures for a client that sends JSON.stringify's output; null (unmeasured) if it cannot. */
const sentBytes = (raw: unknown): number | null => {
  try {
    return Buffer.byteLength(JSON.stringify(raw) ?? "", "utf8");
  } catch {
    return null;
  }
};

/** The reason normalise.ts gives a message (a string: JSON text, as body.ts parses it), through the real code: a reworded reason fails here. */
function reasonOf(message: unknown): string {
  const { value: raw, nonFinite } = typeof message === "string" ? parseExactJson(message) : { value: message, nonFinite: false };
  const r = normaliseMessage({
    nonFinite,
    raw,
    index: 0,
    endpointType: null,
    defaults: { context: null, integrations: null, sentAt: null, sentAtIso: null },
    receivedAt: { ms: Date.parse("2026-11-21T15:00:00.000Z"), iso: "2026-11-21T15:00:00.000Z" },
    sentBytes: sentBytes(raw),
    newMessageId: () => "generated",
  });
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(raw)}`);
  return r.rejection.reason;
}

const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });

describe("rejectionCategory (issue 13.3: a bounded label for every rejection)", () => {
  it.each([
    ["not an object", 42, "not_an_object"],
    ["an array", [1], "not_an_object"],
    ["no userId nor anonymousId", { type: "track", event: "E" }, "missing_id"],
    ["track without event", { type: "track", userId: "u" }, "missing_field"],
    ["group without groupId", { type: "group", userId: "u" }, "missing_field"],
    ["alias without previousId", { type: "alias", userId: "u" }, "missing_field"],
    ["no type", { userId: "u" }, "invalid_type"],
    ["unknown type", { type: "purchase", userId: "u" }, "invalid_type"],
    ["messageId of the wrong type", { type: "track", userId: "u", event: "E", messageId: { a: 1 } }, "invalid_message_id"],
    ["messageId too long", { type: "track", userId: "u", event: "E", messageId: "m".repeat(101) }, "invalid_message_id"],
    ["timestamp not a date", { type: "track", userId: "u", event: "E", timestamp: "yesterday" }, "invalid_timestamp"],
    ["timestamp of the wrong type", { type: "track", userId: "u", event: "E", timestamp: 12 }, "invalid_timestamp"],
    ["sentAt not a date", { type: "track", userId: "u", event: "E", sentAt: "soon" }, "invalid_timestamp"],
    ["properties not an object", { type: "track", userId: "u", event: "E", properties: [1] }, "invalid_field"],
    ["userId of the wrong type", { type: "track", userId: true, event: "E" }, "invalid_field"],
    ["userId too long", { type: "track", userId: "u".repeat(513), event: "E" }, "too_large"],
    ["over 32 KB", { type: "track", userId: "u", event: "E", properties: { x: "x".repeat(40_000) } }, "too_large"],
    ["nested too deep", { type: "track", userId: "u", event: "E", properties: deep(70) }, "too_deep"],
    ["a NUL character", { type: "track", userId: "u", event: "E", properties: { x: "a\u0000b" } }, "invalid_text"],
    ["a lone surrogate", { type: "track", userId: "u", event: "E", properties: { x: "a\ud800b" } }, "invalid_text"],
    ["a property past a double's range", '{"type":"track","userId":"u","event":"E","properties":{"n":1e400}}', "invalid_field"],
    ["a timestamp past a double's range", '{"type":"track","userId":"u","event":"E","timestamp":1e400}', "invalid_field"],
    ["a messageId past a double's range", '{"type":"track","userId":"u","event":"E","messageId":1e400}', "invalid_message_id"],
  ])("%s → %s", (_what, raw, category) => {
    expect(rejectionCategory(reasonOf(raw))).toBe(category);
  });

  it("never lets free text through: anything unknown is `other`, and every category is in the fixed list", () => {
    expect(rejectionCategory("something new went wrong")).toBe("other");
    for (const reason of ["", "userId or anonymousId is required", "message is 40,000 bytes (40 KB); the limit is 32 KB per message"])
      expect(REJECTION_CATEGORIES).toContain(rejectionCategory(reason));
  });
});
