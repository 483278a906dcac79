import { describe, expect, it } from "vitest";
import { bareArray, column, JSON_SEPARATOR, jsonTexts, textArray } from "./pg-arrays";

describe("array parameters", () => {
  it("quotes every text element, so NULL, braces, commas, spaces and empty strings stay text", () => {
    expect(textArray(["NULL", null, "", "a,b", "{x}", " s "])).toBe('{"NULL",NULL,"","a,b","{x}"," s "}');
  });

  it("escapes quotes and backslashes inside a text element", () => {
    expect(textArray(['say "hi"', "C:\\dir\\"])).toBe('{"say \\"hi\\"","C:\\\\dir\\\\"}');
  });

  it("writes uuids, timestamps and integers bare, NULL unquoted", () => {
    expect(bareArray(["2026-01-01T00:00:00.000Z", null])).toBe("{2026-01-01T00:00:00.000Z,NULL}");
    expect(bareArray([1, null, 200])).toBe("{1,NULL,200}");
    expect(textArray([])).toBe("{}");
  });

  it("joins JSON texts with a separator JSON.stringify never writes raw, NULL as the empty element", () => {
    const texts = [JSON.stringify({ a: `x${JSON_SEPARATOR}y` }), null, JSON.stringify("😀")];
    expect(jsonTexts(texts).split(JSON_SEPARATOR)).toEqual([texts[0], "", texts[2]]);
  });

  it("refuses a value that is not a JSON text rather than store it split", () => {
    expect(() => jsonTexts([`a${JSON_SEPARATOR}b`])).toThrow();
    expect(() => jsonTexts([""])).toThrow();
  });
});

describe("a column whose values are literals of their own", () => {
  it("encodes the inner literals without disturbing the outer one", () => {
    const rows = [["http://h/a,b", 'http://h/"q"'], [], ["NULL"]];
    expect(column(rows, (urls) => textArray(urls), "text")).toBe(
      '{"{\\"http://h/a,b\\",\\"http://h/\\\\\\"q\\\\\\"\\"}","{}","{\\"NULL\\"}"}',
    );
  });
});
