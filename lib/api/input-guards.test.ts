import { describe, expect, it } from "vitest";
import { MAX_INPUT_DEPTH, findUnstorableInput } from "./input-guards";

const nest = (depth: number): unknown => {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = { all: [v] };
  return v;
};

describe("findUnstorableInput", () => {
  it("passes ordinary input, unicode and emoji included", () => {
    expect(findUnstorableInput({ name: "Café ☃ 🔑", urls: ["https://a.example"], n: 1, ok: true, none: null })).toBeNull();
  });

  it("names the field of a NUL, however deep", () => {
    expect(findUnstorableInput({ name: "a\u0000b" })).toEqual({ path: "name", message: expect.stringMatching(/NUL/) });
    expect(findUnstorableInput({ filter: { userId: "\u0000" } })?.path).toBe("filter.userId");
    expect(findUnstorableInput({ userIds: ["ok", "u\u0000"] })?.path).toBe("userIds.1");
    expect(findUnstorableInput("\u0000")?.path).toBe("_");
  });

  it("refuses NUL in a key, with the key escaped in the path", () => {
    expect(findUnstorableInput({ payload: { "a\u0000": 1 } })).toEqual({
      path: "payload.a\\u0000",
      message: expect.stringMatching(/^Field name/),
    });
  });

  it("refuses unpaired surrogates and keeps paired ones", () => {
    expect(findUnstorableInput({ name: "\uD800" })?.path).toBe("name");
    expect(findUnstorableInput({ name: "x\uDC00" })?.path).toBe("name");
    expect(findUnstorableInput({ name: "\uD83D\uDD11" })).toBeNull();
  });

  it("refuses a tree deeper than the limit at its top-level field, without recursing further", () => {
    expect(findUnstorableInput({ condition: nest(MAX_INPUT_DEPTH / 2 - 1) })).toBeNull();
    expect(findUnstorableInput({ condition: nest(3000) })).toEqual({ path: "condition", message: expect.stringMatching(/levels deep/) });
  });
});
