import { describe, expect, it, vi } from "vitest";
import { OriginLimiter } from "./origins";

describe("OriginLimiter", () => {
  it("caps concurrency per origin and leaves other origins alone", async () => {
    const l = new OriginLimiter(2, 60_000);
    const a1 = await l.acquire("a");
    const a2 = await l.acquire("a");
    let a3Granted = false;
    const a3 = l.acquire("a").then((r) => {
      a3Granted = true;
      return r;
    });
    const b1 = await l.acquire("b");
    expect(b1).toBeTypeOf("function");
    await Promise.resolve();
    expect(a3Granted).toBe(false);
    a1!(5);
    expect(await a3).toBeTypeOf("function");
    a2!(5);
  });

  it("lets requests queue behind a fast origin", async () => {
    const l = new OriginLimiter(1, 1_000);
    const first = await l.acquire("fast");
    first!(2);
    const held = await l.acquire("fast");
    const queued = Array.from({ length: 50 }, () => l.acquire("fast"));
    held!(2);
    for (const q of queued) (await q)!(2);
    expect((await Promise.all(queued)).every((r) => r !== null)).toBe(true);
  });

  it("queues behind a healthy origin however long the queue (a loaded machine is not a slow endpoint)", async () => {
    const l = new OriginLimiter(1, 1_000);
    (await l.acquire("busy"))!(100);
    const held = await l.acquire("busy");
    // 20 × 100 ms ahead of the last one: 2 s, more than maxWaitMs, yet every request gets its turn.
    const queued = Array.from({ length: 20 }, () => l.acquire("busy"));
    held!(100);
    for (const q of queued) (await q)!(100);
    expect((await Promise.all(queued)).every((r) => r !== null)).toBe(true);
  });

  it("defers at once behind an origin whose requests take long", async () => {
    const l = new OriginLimiter(2, 1_000);
    const slow1 = await l.acquire("slow");
    slow1!(5_000); // a timeout
    const h1 = await l.acquire("slow");
    const h2 = await l.acquire("slow");
    expect(await l.acquire("slow")).toBeNull();
    expect(await l.acquire("other")).toBeTypeOf("function");
    h1!(5_000);
    h2!(5_000);
  });

  it("defers a waiter that waited too long", async () => {
    const l = new OriginLimiter(1, 10);
    const held = await l.acquire("x");
    expect(await l.acquire("x")).toBeNull();
    held!();
  });

  it("defers each waiter once it waited its time, not before, and hands slots to the others in order", async () => {
    // maxWaitMs 1,200: a waiter is deferred after 3.6 s in the queue; the origin (it has answered
    // once, in 1 ms) looks slow only once a request of its is in flight for 200 ms, so a second waiter
    // can still queue 100 ms after the first. On a fake clock: the 3.6 s pass at once, and exactly.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const l = new OriginLimiter(1, 1_200);
      (await l.acquire("q"))!(1);
      const held = (await l.acquire("q"))!;
      const early = l.acquire("q");
      let earlyAnswered = false;
      void early.then(() => (earlyAnswered = true));
      await vi.advanceTimersByTimeAsync(100);
      const late = l.acquire("q");
      await vi.advanceTimersByTimeAsync(3_499);
      expect(earlyAnswered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(earlyAnswered).toBe(true);
      expect(await early).toBeNull();
      // The later one still waits; the freed slot goes to it.
      held(1);
      const granted = await late;
      expect(granted).toBeTypeOf("function");
      granted!(1);
      expect(l.backlogMs("q")).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("releasing twice frees only one slot", async () => {
    const l = new OriginLimiter(1, 10);
    const r = await l.acquire("x");
    r!();
    r!();
    const first = await l.acquire("x");
    expect(first).toBeTypeOf("function");
    expect(await l.acquire("x")).toBeNull();
  });

  it("knows an origin is slow while a request of its hangs, and again once it is released", async () => {
    const l = new OriginLimiter(4, 1_000);
    const t0 = performance.now();
    const hanging = await l.acquire("dead");
    const quick = await l.acquire("ok");
    expect(l.isSlow("dead", 500, t0 + 100)).toBe(false);
    expect(l.isSlow("dead", 500, t0 + 60_000)).toBe(true);
    quick!(3);
    expect(l.isSlow("ok", 500, t0 + 60_000)).toBe(false);
    expect(l.isSlow("never-seen", 500)).toBe(false);
    hanging!(5_000);
    // Nothing in flight now, but its recent requests took 5 s.
    expect(l.isSlow("dead", 500)).toBe(true);
  });
  it("tells how long an origin's queue will take at its recent pace", async () => {
    // An origin whose requests take 100 ms: remembered between requests (above maxWaitMs / 10), not slow.
    const l = new OriginLimiter(2, 900);
    expect(l.backlogMs("a")).toBe(0);
    const first = await l.acquire("a");
    first!(100);
    const held = [await l.acquire("a"), await l.acquire("a")];
    const queued = Array.from({ length: 6 }, () => l.acquire("a"));
    // 6 waiting, 2 at a time, 100 ms each
    expect(l.backlogMs("a")).toBe(300);
    for (const h of held) h!(100);
    for (const q of queued) (await q)!(100);
    expect(l.backlogMs("a")).toBe(0);
  });

  it("spreads the requests a slow origin deferred at its pace, up to a cap", async () => {
    const l = new OriginLimiter(2, 3_000);
    const t0 = performance.now();
    const a = await l.acquire("dead");
    const b = await l.acquire("dead");
    // Both slots held for 1 s: each deferred request gets the next turn, 1 s / 2 slots after the previous.
    const now = t0 + 1_000;
    const turns = [1, 2, 3].map(() => l.deferTurnMs("dead", 60_000, now));
    expect(turns[1] - turns[0]).toBeCloseTo(turns[2] - turns[1], 0);
    expect(turns[1] - turns[0]).toBeGreaterThan(499);
    expect(l.deferTurnMs("dead", 2_000, now)).toBeCloseTo(2_000, 0);
    expect(l.deferTurnMs("unknown", 2_000, now)).toBe(0);
    a!(1_000);
    b!(1_000);
  });

  it("judges an origin that has not answered yet slow sooner than one whose pace it knows", async () => {
    const l = new OriginLimiter(4, 3_000);
    const t0 = performance.now();
    const first = await l.acquire("new");
    // Nothing back from it yet: 250 ms in flight is slow at a 500 ms bar (drill 6's newly dead endpoint).
    expect(l.isSlow("new", 500, t0 + 150)).toBe(false);
    expect(l.isSlow("new", 500, t0 + 250)).toBe(true);
    first!(300);
    // Once it has answered (in 300 ms), a request 250 ms or 700 ms in flight is its normal pace.
    const t1 = performance.now();
    const second = await l.acquire("new");
    expect(l.isSlow("new", 500, t1 + 700)).toBe(false);
    second!(300);
  });

  it("remembers an idle origin's pace, so its next request is not judged as an unknown origin's", async () => {
    const l = new OriginLimiter(4, 3_000);
    (await l.acquire("healthy"))!(200);
    // Idle now (nothing in flight). Its next request, 250 ms in flight, is within its known pace.
    const t = performance.now();
    const next = await l.acquire("healthy");
    expect(l.isSlow("healthy", 500, t + 250)).toBe(false);
    next!(200);
  });

  it("queues a retry behind the requests a saturated origin deferred, and only then", async () => {
    const l = new OriginLimiter(2, 3_000);
    const t0 = performance.now();
    const a = await l.acquire("dead");
    const b = await l.acquire("dead");
    const now = t0 + 1_000;
    // No deferred request waits for a turn: the retry's backoff alone decides.
    expect(l.retryTurnMs("dead", 30_000, now)).toBe(0);
    const deferred = [1, 2, 3].map(() => l.deferTurnMs("dead", 30_000, now));
    // Three wait for turns: the retry gets the next one, after theirs.
    const retry = l.retryTurnMs("dead", 30_000, now);
    expect(retry).toBeGreaterThan(Math.max(...deferred));
    expect(l.retryTurnMs("elsewhere", 30_000, now)).toBe(0);
    a!(1_000);
    b!(1_000);
  });
});
