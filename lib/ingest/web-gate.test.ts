/**
 * The web slots' bookkeeping (web-gate.ts, docs/edge.md#web-slots): who is granted a freed slot, in
 * what order, and when a waiter gives up. No I/O: the gate is driven directly.
 */
import { describe, expect, it } from "vitest";
import { FairGate, type Release } from "./web-gate";

const never = new AbortController().signal;
const gate = (o: Partial<ConstructorParameters<typeof FairGate>[0]> = {}) =>
  new FairGate({ limit: 1, perAddress: 1, waitMs: 5_000, maxWaiting: 256, maxWaitingPerAddress: 32, ...o });

describe("FairGate", () => {
  it("grants freed slots in turn across addresses, not in arrival order", async () => {
    const g = gate();
    const held: Release[] = [await g.take("holder", never)];
    const granted: string[] = [];
    const waiters = ["greedy", "greedy", "greedy", "other", "third"].map((address) =>
      g.take(address, never).then((r) => {
        granted.push(address);
        held.push(r);
      }),
    );
    // One slot: each release grants the next waiter, whose release grants the one after.
    for (let i = 0; i < waiters.length; i++) {
      held.shift()?.();
      await expect.poll(() => granted.length).toBe(i + 1);
    }
    held.shift()?.();
    await Promise.all(waiters);
    // Arrival order would be greedy, greedy, greedy, other, third.
    expect(granted).toEqual(["greedy", "other", "third", "greedy", "greedy"]);
  });

  it("refuses a waiter after waitMs, and at once past the queue bounds", async () => {
    const g = gate({ waitMs: 50, maxWaitingPerAddress: 1 });
    const release = await g.take("holder", never);
    const started = performance.now();
    const waited = g.take("a", never);
    await expect(g.take("a", never)).rejects.toBe("queue_full");
    await expect(waited).rejects.toBe("timeout");
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    release();
    expect(g.stats).toEqual({ busy: 0, waiting: 0 });
  });
});
