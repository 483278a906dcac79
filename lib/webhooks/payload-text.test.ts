import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExact } from "../platform/exact-json";
import { buildPayload, MESSAGE_TYPES, serializePayload, type StoredMessage } from "./payload";
import { SeedFields, seedBodyFromText, seedFields } from "./payload-text";
import { shapeRequest, DEFAULT_SHAPE } from "./request-shape";
import { storedMessage } from "../../test/harness/stored-message";

/** A message as the loader gives it: its payload's text as stored (stringifyExact) and that text parsed. */
function stored(type: string, payload: Record<string, unknown>, extra: Partial<StoredMessage> = {}): { m: StoredMessage; text: string } {
  const text = stringifyExact(payload);
  return { text, m: storedMessage(type, parseExactJson(text).value as Record<string, unknown>, extra) };
}

const parsedPath = (m: StoredMessage) => serializePayload(buildPayload(m));

/** Strings that a scanner of JSON text could mistake for structure. */
const TRICKY = ['a"b', "back\\slash\\", '\\"', "}{][,:", "line\nbreak\ttab", "\u2028\u2029", "é😀", "", '{"x":1}', "\u0001"];

describe("seedBodyFromText: the seed's body from the stored text, byte for byte what parsing gives", () => {
  const variants: Record<string, unknown>[] = [
    {},
    { properties: { total: 129.9, currency: "EUR", products: [{ sku: "S-1", price: 1e21 }] }, context: { ip: "1.2.3.4" }, event: "Order" },
    { properties: [], context: [], event: 7, name: null, category: 3, traits: "x", groupId: 9, previousId: false },
    { properties: null, context: null, traits: null, event: null, name: { a: 1 }, category: ["c"] },
    { properties: {}, context: {}, traits: {}, name: "Home", category: "Docs", groupId: "g-1", previousId: "p-1", event: "E" },
    { properties: { "2": "b", "1": "a", z: 0, "10": -0.5 }, context: { library: { name: "x", version: "1" } } },
    { properties: { tricky: TRICKY, nested: { deeper: [[TRICKY], { k: TRICKY[0] }] } }, traits: { t: TRICKY }, name: TRICKY[1] },
    { userId: "from-payload", anonymousId: "anon-payload", properties: { a: true, b: false, c: null } },
    { anonymousId: "", userId: 42 },
    { __proto__x: 1, integrations: { All: false }, timestamp: "ignored", messageId: "ignored", type: "ignored" },
  ];

  for (const type of MESSAGE_TYPES.filter((t) => t !== "delete"))
    it(`${type}: every payload variant, with and without the columns' userId, anonymousId and sentAt`, () => {
      for (const payload of variants)
        for (const extra of [{}, { userId: null, anonymousId: null, sentAt: null }, { anonymousId: "" }, { userId: null }]) {
          const { m, text } = stored(type, payload, extra);
          expect(seedBodyFromText(m, text), `${type} ${text} ${JSON.stringify(extra)}`).toBe(parsedPath(m));
        }
    });

  it("integers beyond 2^53 keep their digits", () => {
    const text = '{"event":"Order Completed","properties":{"orderId":9007199254740993,"n":[18446744073709551615]}}';
    const m = { ...stored("track", {}).m, payload: parseExactJson(text).value as Record<string, unknown> };
    expect(seedBodyFromText(m, text)).toBe(parsedPath(m));
    expect(seedBodyFromText(m, text)).toContain('"properties":{"orderId":9007199254740993,"n":[18446744073709551615]}');
  });

  it("random payloads: the same bytes as the parsing path (a seeded, bounded run)", () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const value = (depth: number): unknown => {
      switch (rand(depth > 3 ? 5 : 7)) {
        case 0:
          return TRICKY[rand(TRICKY.length)] + String(rand(100));
        case 1:
          return rand(3) === 0 ? -rand(1000) / 7 : rand(100000);
        case 2:
          return [true, false, null][rand(3)];
        case 3:
          return "";
        case 4:
          return rand(2) === 0 ? 2 ** 60 + rand(1000) : 0.1;
        case 5:
          return Array.from({ length: rand(4) }, () => value(depth + 1));
        default: {
          const o: Record<string, unknown> = {};
          for (let i = rand(5); i > 0; i--) o[[...TRICKY, "k", "1", "20"][rand(TRICKY.length + 3)] + String(rand(3))] = value(depth + 1);
          return o;
        }
      }
    };
    const keys = [
      "properties",
      "context",
      "traits",
      "event",
      "name",
      "category",
      "groupId",
      "previousId",
      "userId",
      "anonymousId",
      "other",
    ];
    for (let n = 0; n < 2000; n++) {
      const payload: Record<string, unknown> = {};
      for (const k of keys) if (rand(3) > 0) payload[k] = value(0);
      const type = MESSAGE_TYPES[rand(MESSAGE_TYPES.length - 1)];
      const { m, text } = stored(type, payload, rand(2) ? {} : { userId: null, anonymousId: null });
      expect(seedBodyFromText(m, text), text).toBe(parsedPath(m));
    }
  });

  it("refuses a text Postgres' jsonb wrote (an audience's identify, a payload stored before texts were kept): the caller parses it", () => {
    const jsonbText = '{"type": "identify", "traits": {"vip": true}, "userId": "u-1", "context": {}}';
    expect(seedFields(jsonbText)).toBeNull();
    const m = { ...stored("identify", {}).m, payload: JSON.parse(jsonbText), payloadText: jsonbText };
    expect(seedBodyFromText(m, jsonbText)).toBeNull();
    // shapeRequest then takes the parsing path: the body is the one buildPayload gives, not the text's spacing.
    expect(shapeRequest(DEFAULT_SHAPE, m, ["https://x/"]).body).toBe(parsedPath(m));
    expect(shapeRequest(DEFAULT_SHAPE, m, ["https://x/"]).body).toContain('"traits":{"vip":true}');
  });

  it("shapeRequest writes the default body from the text when the loader kept it", () => {
    const { m, text } = stored("track", { event: "E", properties: { a: 1 } });
    const fromText = { ...m, payloadText: text, payload: null };
    // payload null: only the text could have given these properties
    expect(shapeRequest(DEFAULT_SHAPE, fromText, ["https://x/"]).body).toBe(parsedPath(m));
  });

  it("refuses what is not a compact JSON object", () => {
    for (const bad of ["", "[]", "{", '{"a":1', '{"a" :1}', '{"a":1 }', '{"a":"x}', '{"a":{"b":1}', '{"a":1}x', "{a:1}"])
      expect(seedFields(bad), bad).toBeNull();
    expect(seedFields("{}")).toEqual(new SeedFields());
    const f = seedFields('{"name":"x\\"}","properties":[1,{"c":"]"}],"constructor":1,"event":-1.5e+21,"userId":null,"__proto__":{}}');
    expect({ ...f }).toEqual({ ...new SeedFields(), name: '"x\\"}"', properties: '[1,{"c":"]"}]', event: "-1.5e+21", userId: "null" });
  });
});
