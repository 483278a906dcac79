import { describe, expect, it } from "vitest";
import { scanSerializedJson } from "./json-scan";

const scan = (v: unknown) => scanSerializedJson(JSON.stringify(v));

describe("scanSerializedJson", () => {
  it("finds NUL and lone surrogates, not text that merely looks like their escapes", () => {
    expect(scan({ a: "x\u0000y" })).toMatchObject({ hasNul: true, hasLoneSurrogate: false });
    expect(scan({ a: "\ud800" })).toMatchObject({ hasNul: false, hasLoneSurrogate: true });
    expect(scan({ a: "\udfff tail" })).toMatchObject({ hasLoneSurrogate: true });
    expect(scan({ a: "😀 paired surrogates are fine" })).toMatchObject({ hasNul: false, hasLoneSurrogate: false });
    expect(scan({ a: "C:\\u0000 and \\ud800 as text" })).toMatchObject({ hasNul: false, hasLoneSurrogate: false });
    expect(scan({ a: "\\\u0000" })).toMatchObject({ hasNul: true });
    expect(scan({ a: "\u0001 other control characters are fine" })).toMatchObject({ hasNul: false, hasLoneSurrogate: false });
  });

  it("measures depth exactly when it may pass the limit, ignoring brackets in strings", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 80; i++) deep = [deep];
    expect(scan(deep).depth).toBe(80);
    expect(scan({ s: "[".repeat(100) }).depth).toBeLessThanOrEqual(64);
    expect(scan({ s: "[".repeat(100), a: { b: [1] } }).depth).toBe(3);
    expect(scan({ s: `\\"[[[${"{".repeat(70)}` }).depth).toBe(1);
  });

  it("bounds the depth of ordinary messages without walking them", () => {
    const msg = { type: "track", properties: { products: [{ sku: "x" }] }, context: { library: { name: "n" } } };
    expect(scan(msg).depth).toBeLessThanOrEqual(64);
    expect(scan(msg).depth).toBeGreaterThanOrEqual(4);
  });
});
