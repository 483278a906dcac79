import { describe, expect, it } from "vitest";
import { AnalyticsError } from "./errors";
import { buildMessage, MAX_MESSAGE_BYTES } from "./message";

const stamp = { now: () => new Date("2026-11-21T15:05:50.123Z"), newId: () => "generated-id" };

function errorOf(fn: () => unknown): AnalyticsError {
  try {
    fn();
  } catch (err) {
    return err as AnalyticsError;
  }
  throw new Error("expected a throw");
}

describe("buildMessage", () => {
  it("stamps type, messageId, timestamp and library context, keeping the caller's fields", () => {
    const m = buildMessage(
      "track",
      {
        userId: "u1",
        event: "Order Completed",
        properties: { total: 9.5 },
        context: { ip: "1.2.3.4" },
        integrations: { All: false, Webhooks: true },
      },
      stamp,
    );
    expect(m.messageId).toBe("generated-id");
    expect(m.bytes).toBe(Buffer.byteLength(m.json));
    expect(JSON.parse(m.json)).toEqual({
      type: "track",
      messageId: "generated-id",
      timestamp: "2026-11-21T15:05:50.123Z",
      userId: "u1",
      event: "Order Completed",
      properties: { total: 9.5 },
      context: { ip: "1.2.3.4", library: { name: "eventrail-analytics", version: "0.1.0" } },
      integrations: { All: false, Webhooks: true },
    });
  });

  it("keeps a caller's messageId and a historical timestamp in any ISO 8601 form, as UTC", () => {
    const m = JSON.parse(
      buildMessage("identify", { anonymousId: "a1", messageId: "mine", timestamp: "2020-01-02T03:04:05+0100" }, stamp).json,
    );
    expect(m.messageId).toBe("mine");
    expect(m.timestamp).toBe("2020-01-02T02:04:05.000Z");
    expect(JSON.parse(buildMessage("identify", { userId: "u", timestamp: new Date(0) }, stamp).json).timestamp).toBe(
      "1970-01-01T00:00:00.000Z",
    );
  });

  it.each([
    ["identify", {}, "identify: userId or anonymousId is required"],
    ["track", { userId: "u" }, "track: event is required"],
    ["track", { userId: "u", event: "" }, "track: event is required"],
    ["page", { name: "Home" }, "page: userId or anonymousId is required"],
    ["screen", { anonymousId: "" }, "screen: userId or anonymousId is required"],
    ["group", { userId: "u" }, "group: groupId is required"],
    ["alias", { previousId: "p" }, "alias: userId is required"],
    ["alias", { userId: "u" }, "alias: previousId is required"],
    ["track", { userId: 42, event: "E" }, "track: userId must be a string"],
    ["track", { userId: "u", event: "E", properties: [1] }, "track: properties must be an object"],
    ["identify", { userId: "u", traits: "x" }, "identify: traits must be an object"],
    ["track", { userId: "u", event: "E", integrations: { Webhooks: "yes" } }, "track: integrations.Webhooks must be a boolean"],
    ["track", { userId: "u", event: "E", timestamp: "last tuesday" }, "track: timestamp must be a Date or an ISO 8601 string"],
    ["track", { userId: "u", event: "E", messageId: "x".repeat(101) }, "track: messageId must be a non-empty string of at most 100"],
  ] as const)("%s %j is refused at the call", (type, params, message) => {
    const err = errorOf(() => buildMessage(type, params, stamp));
    expect(err).toBeInstanceOf(AnalyticsError);
    expect(err.code).toBe("invalid_message");
    expect(err.message).toContain(message);
  });

  it("refuses input that is not an object or not serializable", () => {
    expect(errorOf(() => buildMessage("track", null, stamp)).message).toBe("track: expected an object of message fields");
    expect(errorOf(() => buildMessage("track", { userId: "u", event: "E", properties: { n: 1n } }, stamp)).message).toContain(
      "not serializable to JSON",
    );
  });

  it("refuses a message over 32 KB of JSON and accepts one at the limit", () => {
    const base = buildMessage("track", { userId: "u", event: "E", properties: { pad: "" } }, stamp).bytes;
    const atLimit = buildMessage("track", { userId: "u", event: "E", properties: { pad: "x".repeat(MAX_MESSAGE_BYTES - base) } }, stamp);
    expect(atLimit.bytes).toBe(32 * 1024);
    const err = errorOf(() =>
      buildMessage("track", { userId: "u", event: "E", properties: { pad: "x".repeat(MAX_MESSAGE_BYTES - base + 1) } }, stamp),
    );
    expect(err.code).toBe("message_too_large");
    expect(err.message).toContain("32769 bytes");
  });

  it("counts bytes, not characters, against the limit", () => {
    const base = buildMessage("track", { userId: "u", event: "E", properties: { pad: "" } }, stamp).bytes;
    // "é" is 2 bytes in UTF-8: half as many characters reach the limit.
    const chars = Math.floor((MAX_MESSAGE_BYTES - base) / 2) + 1;
    expect(errorOf(() => buildMessage("track", { userId: "u", event: "E", properties: { pad: "é".repeat(chars) } }, stamp)).code).toBe(
      "message_too_large",
    );
  });
});
