import { describe, expect, it } from "vitest";
import { createGate } from "./gate";

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe("createGate", () => {
  it("runs at most `slots` at once, the rest in order, and turns callers away past `maxWaiting`", async () => {
    const gate = createGate({ slots: 2, maxWaiting: 2 });
    const started: number[] = [];
    const blockers = Array.from({ length: 4 }, deferred);
    const runs = blockers.map((b, i) =>
      gate.run(async () => {
        started.push(i);
        await b.promise;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(gate.load).toEqual({ running: 2, waiting: 2 });
    expect(await gate.run(async () => "never")).toEqual({ turnedAway: true });

    blockers[1].resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const b of blockers) b.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3].map((value) => ({ turnedAway: false, value })));
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it("frees the slot when the work throws", async () => {
    const gate = createGate({ slots: 1, maxWaiting: 0 });
    await expect(gate.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => 1)).toEqual({ turnedAway: false, value: 1 });
  });

  it("rests a slot as long as its call took before handing it to a waiter, and never delays a lone call", async () => {
    const gate = createGate({ slots: 1, maxWaiting: 5, restRatio: 1 });
    await gate.run(() => new Promise((r) => setTimeout(r, 50)));
    // Nobody was waiting: the slot is free at once.
    expect(gate.load).toEqual({ running: 0, waiting: 0 });

    const startedAt: number[] = [];
    const work = () =>
      gate.run(async () => {
        startedAt.push(performance.now());
        await new Promise((r) => setTimeout(r, 50));
      });
    await Promise.all([work(), work()]);
    expect(startedAt[1] - startedAt[0]).toBeGreaterThanOrEqual(95);
  });
});
