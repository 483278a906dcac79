import { describe, expect, it } from "vitest";
import { logKeys, normaliseFilter } from "./hooks";

describe("request log filters", () => {
  it("keeps only set filters, in one order, so equal filters share a cache entry", () => {
    expect(normaliseFilter({ type: "track", destinationId: "", outcome: "failed" })).toEqual({ outcome: "failed", type: "track" });
    expect(logKeys.list({ type: "track", outcome: "failed" })).toEqual(
      logKeys.list({ outcome: "failed", type: "track", userId: undefined }),
    );
    expect(Object.keys(normaliseFilter({ to: "b", from: "a", url: "u" }))).toEqual(["url", "from", "to"]);
  });
});

/** TanStack Query matches keys by prefix: `a` covers `b` when `b` starts with every element of `a`. */
const covers = (a: readonly unknown[], b: readonly unknown[]) => a.every((x, i) => JSON.stringify(x) === JSON.stringify(b[i]));

describe("request log keys", () => {
  it("puts every attempt query under attempts() and every message query under messages(), both under all", () => {
    const attempts = [logKeys.list({ outcome: "failed" }), logKeys.recent("d1"), logKeys.detail("7")];
    const messages = [logKeys.message("m1"), logKeys.replayCount({})];
    for (const k of attempts) expect(covers(logKeys.attempts(), k)).toBe(true);
    for (const k of messages) expect(covers(logKeys.messages(), k)).toBe(true);
    for (const k of [...attempts, ...messages]) expect(covers(logKeys.all, k)).toBe(true);
    for (const k of messages) expect(covers(logKeys.attempts(), k)).toBe(false);
    for (const k of attempts) expect(covers(logKeys.messages(), k)).toBe(false);
  });
});
