import { describe, expect, it } from "vitest";
import { lineCount, prettyIfJson } from "./json";

describe("lineCount", () => {
  it("counts the lines of a text", () => {
    expect(lineCount("")).toBe(1);
    expect(lineCount("a")).toBe(1);
    expect(lineCount("a\nb\n")).toBe(3);
  });
  it("counts a pretty-printed body as shown", () => {
    expect(lineCount(prettyIfJson('{"a":1,"b":{"c":2}}'))).toBe(6);
  });
});
