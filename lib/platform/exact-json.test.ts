import { describe, expect, it } from "vitest";
import { ExactInteger, NonFiniteNumber, findNonFinite, parseExactJson, stringifyExact } from "./exact-json";

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
