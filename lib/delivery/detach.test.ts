import { describe, expect, it } from "vitest";
import { drainLateRounds, settleWithin, trackLate } from "./detach";

const resolveAfter = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

describe("settleWithin", () => {
  it("returns at once when everything settles early", async () => {
    const t = Date.now();
    expect(await settleWithin([Promise.resolve(1), resolveAfter(5, 2)], 5_000)).toEqual({ done: [1, 2], late: [] });
    expect(Date.now() - t).toBeLessThan(4_000);
  });

  it("hands back the slow ones as late after the patience", async () => {
    const slow = resolveAfter(400, "slow");
    const r = await settleWithin([Promise.resolve("a"), slow, resolveAfter(1, "b")], 50);
    expect(r).toEqual({ done: ["a", "b"], late: [1] });
    expect(await slow).toBe("slow");
  });

  it("does not wait for rounds to a slow origin, even with all the patience in the world", async () => {
    const hanging = new Promise<string>(() => {});
    // Were the hanging round waited for, this would not return before the test's own 5 s timeout.
    const r = await settleWithin([hanging, resolveAfter(5, "healthy"), Promise.resolve("deferred")], 600_000, [true, false, true]);
    expect(r).toEqual({ done: ["healthy", "deferred"], late: [0] });
  });

  it("rejects when a round fails within the patience (the job is retried)", async () => {
    await expect(settleWithin([Promise.reject(new Error("db down")), resolveAfter(1, 1)], 1_000)).rejects.toThrow("db down");
  });
});

describe("late recordings", () => {
  it("are waited for by drainLateRounds", async () => {
    let done = false;
    trackLate(
      resolveAfter(30, null).then(() => {
        done = true;
      }),
    );
    await drainLateRounds();
    expect(done).toBe(true);
  });
});
