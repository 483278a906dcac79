import { describe, expect, it } from "vitest";
import { OriginLimiter } from "./limiter";

describe("OriginLimiter", () => {
  it("caps concurrency per origin and leaves other origins alone", async () => {
    const l = new OriginLimiter(2, 60_000);
    const a1 = await l.acquire("a");
    const a2 = await l.acquire("a");
    let a3Granted = false;
    const a3 = l.acquire("a").then((r) => ((a3Granted = true), r));
    const b1 = await l.acquire("b");
    expect(b1).toBeTypeOf("function");
    await Promise.resolve();
    expect(a3Granted).toBe(false);
    a1!();
    expect(await a3).toBeTypeOf("function");
    a2!();
  });

  it("hands back null when no slot frees up in time", async () => {
    const l = new OriginLimiter(1, 20);
    const held = await l.acquire("slow");
    expect(await l.acquire("slow")).toBeNull();
    held!();
    const again = await l.acquire("slow");
    expect(again).toBeTypeOf("function");
  });

  it("releasing twice frees only one slot", async () => {
    const l = new OriginLimiter(1, 20);
    const r = await l.acquire("x");
    r!();
    r!();
    const first = await l.acquire("x");
    expect(first).toBeTypeOf("function");
    expect(await l.acquire("x")).toBeNull();
  });
});
