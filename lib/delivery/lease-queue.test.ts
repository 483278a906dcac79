import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaseQueue } from "./lease-queue";

afterEach(() => vi.useRealTimers());

function queue(over: Partial<ConstructorParameters<typeof LeaseQueue>[0]> = {}) {
  const leased: string[] = [];
  const givenBack: number[] = [];
  const q = new LeaseQueue({
    concurrency: 2,
    tokens: false,
    granted: 2,
    take: async () => ({ granted: 0, tokenMs: 0 }),
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
    expect(q.handOff()).toBe(true);
    expect(q.handOff()).toBe(true);
    expect(await Promise.all(waits.slice(0, 2))).toEqual([null, null]);
    expect(leased).toEqual(["w1", "w2"]);
    expect(q.handOff()).toBe(true);
    expect(await waits[2]).toBeNull();
    expect(leased).toEqual(["w1", "w2", "w3"]);
    // nobody waits: the lease stays with the ended round until it is recorded
    expect(q.handOff()).toBe(false);
  });

  it("with all the leases held here it never asks the row; with fewer it asks for the rest, and gives back what nobody waits for any more", async () => {
    vi.useFakeTimers();
    const take = vi.fn(async (want: number) => ({ granted: want, tokenMs: 0 }));
    const full = queue({ take });
    void full.q.wait("a");
    await vi.advanceTimersByTimeAsync(200);
    expect(take).not.toHaveBeenCalled();
    full.q.handOff();

    let grant: (n: number) => void = () => {};
    const slow = vi.fn(
      (_want: number, _have: number) =>
        new Promise<{ granted: number; tokenMs: number }>((r) => (grant = (n) => r({ granted: n, tokenMs: 0 }))),
    );
    const none = queue({ granted: 0, take: slow });
    const w = [none.q.wait("x"), none.q.wait("y")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenCalledWith(2, 0);
    grant(2);
    expect(await Promise.all(w)).toEqual([null, null]);
    expect(none.leased).toEqual(["x", "y"]);
    expect(none.givenBack).toEqual([]);

    const half = queue({ granted: 1, take: slow });
    const h = [half.q.wait("p"), half.q.wait("q")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenLastCalledWith(1, 0);
    // meanwhile a round ends and hands its lease to "p": the one the take grants serves "q"
    expect(half.q.handOff()).toBe(true);
    expect(half.leased).toEqual(["p"]);
    grant(1);
    expect(await Promise.all(h)).toEqual([null, null]);
    expect(half.givenBack).toEqual([]);
    // a take that grants more than is left waiting (a handed-off lease served one meanwhile) gives the rest back
    const over = queue({ concurrency: 3, granted: 1, take: slow });
    const o = [over.q.wait("r"), over.q.wait("s")];
    await vi.advanceTimersByTimeAsync(50);
    expect(slow).toHaveBeenLastCalledWith(2, 0);
    expect(over.q.handOff()).toBe(true);
    grant(2);
    expect(await Promise.all(o)).toEqual([null, null]);
    expect(over.leased).toEqual(["r", "s"]);
    expect(over.givenBack).toEqual([1]);
  });

  it("gives up at its deadline: the waiters left take their turns, in order", async () => {
    vi.useFakeTimers();
    const { q } = queue({ granted: 0, waitMs: 300 });
    const w = [q.wait("a"), q.wait("b"), q.wait("c")];
    await vi.advanceTimersByTimeAsync(400);
    expect(await Promise.all(w)).toEqual([1000, 2000, 3000]);
    expect(q.waiting).toBe(0);
  });
});

describe("LeaseQueue with a per-second limit too: a lease goes on with a token (docs/webhooks.md#rate-limits)", () => {
  /** A bucket of `tokens` whole tokens, refilled one every `everyMs`, and the concurrency row's free slots. */
  function bucket(tokens: number, everyMs: number, freeSlots = 0) {
    const state = { tokens, freeSlots, takes: [] as [want: number, have: number][] };
    const take = async (want: number, have: number) => {
      state.takes.push([want, have]);
      const granted = Math.max(0, Math.min(want, Math.floor(state.tokens), state.freeSlots + have));
      state.tokens -= granted;
      state.freeSlots -= Math.max(0, granted - have);
      return { granted, tokenMs: state.tokens >= 1 ? 0 : everyMs };
    };
    const timer = setInterval(() => state.tokens++, everyMs);
    return { state, take, stop: () => clearInterval(timer) };
  }

  it("keeps an ended round's lease idle until the bucket grants its token, then hands it on: never more in flight than the leases, never more sent than the tokens", async () => {
    vi.useFakeTimers();
    const b = bucket(1, 100);
    const { q, leased, givenBack } = queue({ tokens: true, granted: 2, take: b.take, waitMs: 10_000 });
    const waits = ["a", "b", "c", "d"].map((id) => q.wait(id));
    expect(q.handOff()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    // the one token there is goes with the idle lease, asked for with it (want 1, have 1)
    expect(b.state.takes).toEqual([[1, 1]]);
    expect(leased).toEqual(["a"]);
    expect(q.handOff()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    // no token left: the lease waits idle; the take said when the next one is due
    expect(leased).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(leased).toEqual(["a", "b"]);
    expect(q.handOff()).toBe(true);
    expect(q.handOff()).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(leased).toEqual(["a", "b", "c"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(leased).toEqual(["a", "b", "c", "d"]);
    expect(await Promise.all(waits)).toEqual([null, null, null, null]);
    // every take asked only for the idle leases' tokens: no new lease, nothing given back
    expect(b.state.takes.every(([want, have]) => want === have)).toBe(true);
    expect(givenBack).toEqual([]);
    b.stop();
  });

  it("gives back the idle leases when nobody waits any more: those that gave up take their turns", async () => {
    vi.useFakeTimers();
    const b = bucket(0, 1_000_000);
    const { q, leased, givenBack } = queue({ tokens: true, granted: 2, take: b.take, waitMs: 300 });
    const waits = [q.wait("x"), q.wait("y")];
    expect(q.handOff()).toBe(true);
    expect(q.handOff()).toBe(true);
    await vi.advanceTimersByTimeAsync(400);
    expect(await Promise.all(waits)).toEqual([1000, 2000]);
    expect(leased).toEqual([]);
    expect(givenBack).toEqual([2]);
    b.stop();
  });
});
