import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, ExactInteger, NonFiniteNumber, findNonFinite, parseExactJson, roundedNumbers, stringifyExact } from "./exact-json";

const roundTrip = (text: string) => stringifyExact(parseExactJson(text).value);

describe("parseExactJson / stringifyExact", () => {
  it("keeps integers beyond 2^53 digit for digit, in objects and arrays, signed", () => {
    const text = '{"id":9007199254740993,"ids":[-9223372036854775807,18446744073709551615],"n":{"x":123456789012345678901234567890}}';
    expect(roundTrip(text)).toBe(text);
    expect(parseExactJson(text).value).toMatchObject({ id: new ExactInteger("9007199254740993") });
  });

  it("leaves safe integers and fractions as numbers (JSON.parse's value, same object shapes)", () => {
    const text = '{"a":1234567890123456,"b":9007199254740991,"c":0.1,"d":1e300,"e":"12345678901234567890"}';
    const { value, nonFinite } = parseExactJson(text);
    expect(nonFinite).toBe(false);
    expect(value).toEqual(JSON.parse(text));
    expect(roundTrip(text)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it("marks numbers past a double's range and says where they are", () => {
    const { value, nonFinite } = parseExactJson('{"messageId":"m","properties":{"list":[1,-1e400]}}');
    expect(nonFinite).toBe(true);
    expect(findNonFinite(value)).toEqual({ path: "properties.list[1]", literal: "-1e400" });
    expect(findNonFinite(parseExactJson('{"messageId":1e400}').value)).toEqual({ path: "messageId", literal: "1e400" });
    expect(parseExactJson('{"a":[1e400]}').value).toEqual({ a: [new NonFiniteNumber("1e400")] });
  });

  it("reports invalid JSON with JSON.parse's own error, and keeps the last of duplicate keys", () => {
    expect(() => parseExactJson('{"a":12345678901234567890,}')).toThrow(SyntaxError);
    const { value } = parseExactJson('{"a":1,"b":9007199254740993,"a":2}');
    expect(Object.keys(value as object)).toEqual(["a", "b"]);
    expect((value as { a: number }).a).toBe(2);
  });

  it("writes a client's string that looks like a marker as the string it is", () => {
    const text = '{"s":"exact-0000000000000:1","n":9007199254740993}';
    expect(roundTrip(text)).toBe(text);
  });

  it("JSON.stringify outside stringifyExact writes the digits as a string (a safe fallback, never rounded)", () => {
    expect(JSON.stringify({ n: new ExactInteger("9007199254740993") })).toBe('{"n":"9007199254740993"}');
    expect(Number(new ExactInteger("9007199254740993"))).toBe(9007199254740992);
  });
});

describe("parseExactJson's shortcuts", () => {
  it("returns JSON.parse's own value when 16 digits are only in strings", () => {
    const text = '{"card":"4111111111111111","at":"1732780800000000","n":1}';
    const { value, nonFinite } = parseExactJson(text);
    expect(nonFinite).toBe(false);
    expect(value).toEqual({ card: "4111111111111111", at: "1732780800000000", n: 1 });
  });
});

describe("canonicalJson and roundedNumbers (docs/webhooks.md#numbers)", () => {
  it("writes a text as JavaScript does, and is the text itself when nothing in it changes", () => {
    const text = '{"id":9007199254740993,"s":"12345678901234567","n":[18446744073709551615,1.5]}';
    expect(canonicalJson(text)).toBe('{"id":9007199254740992,"s":"12345678901234567","n":[18446744073709552000,1.5]}');
    const plain = '{"a":1,"b":"x"}';
    expect(canonicalJson(plain)).toBe(plain);
  });

  it("is JSON.stringify(JSON.parse(text)) and idempotent, for generated texts written by stringifyExact", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
            fc.string().map((s) => JSON.stringify(s)),
          ),
        ),
        (parts) => {
          const text = stringifyExact(parseExactJson(`[${parts.join(",")}]`).value);
          const c = canonicalJson(text);
          expect(c).toBe(JSON.stringify(JSON.parse(text)));
          expect(canonicalJson(c)).toBe(c);
        },
      ),
      { seed: 140, numRuns: 1000 },
    );
  });

  it("names each integer whose digits JavaScript changes, with what is sent instead", () => {
    expect(roundedNumbers('{"properties":{"orderId":9007199254740993,"ok":9007199254740992,"ids":[1,18446744073709551615]}}')).toEqual([
      { path: "properties.orderId", digits: "9007199254740993", sent: "9007199254740992" },
      { path: "properties.ids[1]", digits: "18446744073709551615", sent: "18446744073709552000" },
    ]);
    expect(roundedNumbers('{"a":"9007199254740993"}')).toEqual([]);
    expect(roundedNumbers(null)).toEqual([]);
  });
});
