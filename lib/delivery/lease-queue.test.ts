import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaseQueue } from "./lease-queue";

afterEach(() => vi.useRealTimers());

function queue(over: Partial<ConstructorParameters<typeof LeaseQueue>[0]> = {}) {
  const leased: string[] = [];
  const givenBack: number[] = [];
  const q = new LeaseQueue({
    concurrency: 2,
    granted: 2,
    take: async () => 0,
    onLease: (id) => leased.push(id),
    giveBack: (n) => givenBack.push(n),
    turns: (n) => Array.from({ length: n }, (_, k) => 1000 * (k + 1)),
    pollMs: 50,
    waitMs: 5000,
    ...over,
  });
  return { q, leased, givenBack };
}

describe("LeaseQueue: a concurrency-only destination's waiting deliveries (docs/webhooks.md#rate-limits)", () => {
  it("hands each ended round's lease to the next waiter in order, never more at once than the leases held", async () => {
    const { q, leased } = queue();
    const waits = ["w1", "w2", "w3"].map((id) => q.wait(id));
    expect(leased).toEqual([]);
    expect(q.handOff()).toBe("w1");
    expect(q.handOff()).toBe("w2");
    expect(await Promise.all(waits.slice(0, 2))).toEqual([null, null]);
    expect(leased).toEqual(["w1", "w2"]);
    expect(q.handOff()).toBe("w3");
    expect(await waits[2]).toBeNull();
    // nobody waits: the lease stays with the ended round until it is recorded
    expect(q.handOff()).toBeNull();
  });

  it("with all the leases held here it never asks the row; with fewer it asks for the rest, and gives back what nobody waits for any more", async () => {
    vi.useFakeTimers();
    const take = vi.fn(async (want: number) => want);
    const full = queue({ take });
    void full.q.wait("a");
    await vi.advanceTimersByTimeAsync(200);
    expect(take).not.toHaveBeenCalled();
    full.q.handOff();

    let grant: (n: number) => void = () => {};
    const slow = vi.fn(() => new Promise<number>((r) => (grant = r)));
    const none = queue({ granted: 0, take: slow });
    const w = [none.q.wait("x"), none.q.wait("y")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenCalledWith(2);
    grant(2);
    expect(await Promise.all(w)).toEqual([null, null]);
    expect(none.leased).toEqual(["x", "y"]);
    expect(none.givenBack).toEqual([]);

    const half = queue({ granted: 1, take: slow });
    const h = [half.q.wait("p"), half.q.wait("q")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenLastCalledWith(1);
    // meanwhile a round ends and hands its lease to "p": the one the take grants serves "q"
    expect(half.q.handOff()).toBe("p");
    grant(1);
    expect(await Promise.all(h)).toEqual([null, null]);
    expect(half.givenBack).toEqual([]);
    // a take that grants more than is left waiting (a handed-off lease served one meanwhile) gives the rest back
    const over = queue({ concurrency: 3, granted: 1, take: slow });
    const o = [over.q.wait("r"), over.q.wait("s")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenLastCalledWith(2);
    expect(over.q.handOff()).toBe("r");
    grant(2);
    expect(await Promise.all(o)).toEqual([null, null]);
    expect(over.leased).toEqual(["r", "s"]);
    expect(over.givenBack).toEqual([1]);
  });

  it("gives up at its deadline: the waiters left take their turns, in order", async () => {
    vi.useFakeTimers();
    const { q } = queue({ granted: 0, take: async () => 0, waitMs: 300 });
    const w = [q.wait("a"), q.wait("b"), q.wait("c")];
    await vi.advanceTimersByTimeAsync(400);
    expect(await Promise.all(w)).toEqual([1000, 2000, 3000]);
    expect(q.waiting).toBe(0);
  });
});
