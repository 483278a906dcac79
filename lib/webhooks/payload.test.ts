import { describe, expect, it } from "vitest";
import { buildPayload, serializePayload } from "./payload";
import { parseExactJson } from "../platform/exact-json";
import { storedMessage } from "../../test/harness/stored-message";

const tail = '"messageId":"m-1","anonymousId":"a-1","receivedAt":"2026-11-21T15:05:51.123Z","sentAt":"2026-11-21T15:05:50.500Z"}';

describe("buildPayload (docs/webhooks.md#payloads)", () => {
  it("page: version, type, userId, name/category, properties, timestamp, context, extras", () => {
    const body = serializePayload(
      buildPayload(
        storedMessage("page", {
          name: "Pricing",
          category: "Docs",
          properties: { path: "/p", referrer: "", title: "P", url: "https://x/p" },
          context: { ip: "1.2.3.4" },
        }),
      ),
    );
    expect(body).toBe(
      '{"version":1,"type":"page","userId":"u-1","name":"Pricing","category":"Docs","properties":{"path":"/p","referrer":"","title":"P","url":"https://x/p"},"timestamp":"2026-11-21T15:05:50.000Z","context":{"ip":"1.2.3.4"},' +
        tail,
    );
  });

  it("screen always carries context and properties only when set", () => {
    expect(serializePayload(buildPayload(storedMessage("screen", { name: "Home", context: { os: { name: "iOS" } } })))).toBe(
      '{"version":1,"type":"screen","userId":"u-1","name":"Home","timestamp":"2026-11-21T15:05:50.000Z","context":{"os":{"name":"iOS"}},' +
        tail,
    );
    expect(buildPayload(storedMessage("screen", { name: "Home", properties: { a: 1 } }))).toMatchObject({
      properties: { a: 1 },
      context: {},
    });
  });

  it("writes integers beyond 2^53 digit for digit, as the stored payload has them", () => {
    const stored = parseExactJson('{"event":"Order Completed","properties":{"orderId":9007199254740993,"n":[18446744073709551615]}}').value;
    expect(serializePayload(buildPayload(storedMessage("track", stored as Record<string, unknown>)))).toContain(
      '"properties":{"orderId":9007199254740993,"n":[18446744073709551615]}',
    );
  });

  it("screen keeps its category, as page does", () => {
    expect(serializePayload(buildPayload(storedMessage("screen", { name: "Home", category: "Onboarding" })))).toBe(
      `{"version":1,"type":"screen","userId":"u-1","name":"Home","category":"Onboarding","timestamp":"2026-11-21T15:05:50.000Z","context":{},${tail}`,
    );
  });

  it("identify, track, group", () => {
    expect(serializePayload(buildPayload(storedMessage("identify", { traits: { plan: "pro" } })))).toBe(
      `{"version":1,"type":"identify","userId":"u-1","traits":{"plan":"pro"},"timestamp":"2026-11-21T15:05:50.000Z","context":{},${tail}`,
    );
    expect(serializePayload(buildPayload(storedMessage("track", { event: "Signed Up", properties: { n: 1.5 } })))).toBe(
      '{"version":1,"type":"track","userId":"u-1","event":"Signed Up","properties":{"n":1.5},"timestamp":"2026-11-21T15:05:50.000Z","context":{},' +
        tail,
    );
    expect(serializePayload(buildPayload(storedMessage("group", { groupId: "g-1", traits: {} })))).toBe(
      `{"version":1,"type":"group","groupId":"g-1","userId":"u-1","traits":{},"timestamp":"2026-11-21T15:05:50.000Z","context":{},${tail}`,
    );
  });

  it('alias uses "Previous ID" and "User ID" with the space', () => {
    expect(serializePayload(buildPayload(storedMessage("alias", { previousId: "old", userId: "u-1" })))).toBe(
      `{"version":1,"type":"alias","Previous ID":"old","User ID":"u-1","timestamp":"2026-11-21T15:05:50.000Z","context":{},${tail}`,
    );
  });

  it("context is always an object on every type but delete: the call's own, or {} (issue 13.2)", () => {
    for (const type of ["page", "screen", "identify", "track", "alias", "group"]) {
      expect(buildPayload(storedMessage(type, {})).context, type).toEqual({});
      expect(buildPayload(storedMessage(type, { context: { ip: "1.2.3.4" } })).context, type).toEqual({ ip: "1.2.3.4" });
      expect(buildPayload(storedMessage(type, { context: "not an object" })).context, type).toEqual({});
    }
    expect(buildPayload(storedMessage("delete", { context: { ip: "1.2.3.4" } }))).not.toHaveProperty("context");
  });

  it("delete has only type, userId, timestamp and its messageId", () => {
    const m = storedMessage("delete", { context: { a: 1 } });
    expect(serializePayload(buildPayload(m))).toBe(
      `{"type":"delete","userId":"u-1","timestamp":"2026-11-21T15:05:50.000Z","messageId":${JSON.stringify(m.messageId)}}`,
    );
  });

  it("omits anonymousId and sentAt when unknown and sends userId null for anonymous calls", () => {
    const p = buildPayload(storedMessage("track", { event: "E" }, { userId: null, anonymousId: null, sentAt: null }));
    expect(p).toEqual({
      version: 1,
      type: "track",
      userId: null,
      event: "E",
      properties: {},
      timestamp: "2026-11-21T15:05:50.000Z",
      context: {},
      messageId: "m-1",
      receivedAt: "2026-11-21T15:05:51.123Z",
    });
  });
});

describe("buildPayload: an integer beyond 2^53 where an object belongs", () => {
  it("is not taken for the object (it is a number in JSON): properties {} as for any non-object", () => {
    const stored = parseExactJson('{"event":"E","properties":9007199254740993}').value as Record<string, unknown>;
    expect(serializePayload(buildPayload(storedMessage("track", stored)))).toContain('"properties":{}');
  });
});
