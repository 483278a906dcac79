// Fake timers: the patience is a timer, and on a loaded 2-core machine real timers of 1 ms and
// 50 ms can fire in either order. Rounds here are promises the test settles itself.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drainLateRounds, recordAsTheyEnd, settleWithin, trackLate } from "./detach";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The promise's value once it has settled, or "pending". */
function watch<T>(p: Promise<T>) {
  let state: { value: T } | "pending" = "pending";
  p.then((value) => (state = { value }));
  return () => state;
}

describe("settleWithin", () => {
  it("returns as soon as everything settles, without waiting out the patience", async () => {
    const second = deferred<number>();
    const result = watch(settleWithin([Promise.resolve(1), second.promise], 5_000));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(result()).toBe("pending");
    second.resolve(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(result()).toEqual({ value: { done: [1, 2], late: [] } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("hands back the slow ones as late once the patience is over", async () => {
    const slow = deferred<string>();
    const quick = deferred<string>();
    const result = watch(settleWithin([Promise.resolve("a"), slow.promise, quick.promise], 50));
    quick.resolve("b");
    await vi.advanceTimersByTimeAsync(49);
    expect(result()).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(result()).toEqual({ value: { done: ["a", "b"], late: [1] } });
    slow.resolve("slow");
    expect(await slow.promise).toBe("slow");
  });

  it("does not wait for rounds to a slow origin, even with all the patience in the world", async () => {
    const hanging = new Promise<string>(() => {});
    const healthy = deferred<string>();
    const result = watch(settleWithin([hanging, healthy.promise, Promise.resolve("deferred")], 600_000, [true, false, true]));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(result()).toBe("pending"); // the healthy round is still waited for
    healthy.resolve("healthy");
    // Settled without any of the 600 s patience passing: the hanging round to the slow origin is late at once.
    await vi.advanceTimersByTimeAsync(0);
    expect(result()).toEqual({ value: { done: ["healthy", "deferred"], late: [0] } });
  });

  it("after the patience keeps waiting for rounds whose origins are healthy, and lets go of the slow ones", async () => {
    const queued = deferred<string>(); // behind the origin's other requests, not slow
    const hanging = deferred<string>();
    const slow = new Set([1]);
    const result = watch(settleWithin([queued.promise, hanging.promise, Promise.resolve("c")], 500, [], () => (i) => slow.has(i)));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(result()).toBe("pending");
    queued.resolve("a");
    await vi.advanceTimersByTimeAsync(0);
    expect(result()).toEqual({ value: { done: ["a", "c"], late: [1] } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("lets go of a round whose origin turns slow while it is waited for", async () => {
    const round = deferred<string>();
    let slow = false;
    const result = watch(settleWithin([round.promise], 500, [], () => () => slow));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(result()).toBe("pending");
    slow = true;
    await vi.advanceTimersByTimeAsync(100);
    expect(result()).toEqual({ value: { done: [], late: [0] } });
  });

  it("lets go during the patience of a round whose origin another batch has found slow", async () => {
    const healthy = deferred<string>();
    const toDead = deferred<string>();
    let deadFoundSlow = false;
    const result = watch(settleWithin([healthy.promise, toDead.promise], 500, [], (over) => (i) => (i === 1 && deadFoundSlow) || over));
    healthy.resolve("ok");
    await vi.advanceTimersByTimeAsync(100);
    expect(result()).toBe("pending");
    deadFoundSlow = true;
    // Let go at the next look (every 50 ms), not when this batch's own 500 ms are over.
    await vi.advanceTimersByTimeAsync(50);
    expect(result()).toEqual({ value: { done: ["ok"], late: [1] } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("asks for a judge once per look, not once per round", async () => {
    const rounds = Array.from({ length: 50 }, () => deferred<number>());
    let looks = 0;
    let judged = 0;
    const result = watch(
      settleWithin(
        rounds.map((r) => r.promise),
        500,
        [],
        (over) => {
          looks++;
          return () => {
            judged++;
            return over;
          };
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(200);
    expect(result()).toBe("pending");
    for (const [i, r] of rounds.entries()) r.resolve(i);
    await vi.advanceTimersByTimeAsync(0);
    expect(result()).toEqual({ value: { done: rounds.map((_, i) => i), late: [] } });
    // Looks at 0, 50, 100, 150 and 200 ms judge the 50 rounds; the one after they settled finds none to judge.
    expect(looks).toBe(6);
    expect(judged).toBe(5 * 50);
  });

  it("rejects when a round the look waits for fails later in the step", async () => {
    const failing = deferred<number>();
    const settled = settleWithin([failing.promise, deferred<number>().promise], 1_000);
    const caught = settled.catch((e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(300);
    failing.reject(new Error("db down later"));
    await vi.advanceTimersByTimeAsync(0);
    expect(await caught).toBe("db down later");
  });

  it("rejects when a round fails within the patience (the job is retried)", async () => {
    const pending = deferred<number>();
    const settled = settleWithin([Promise.reject(new Error("db down")), pending.promise], 1_000);
    await expect(settled).rejects.toThrow("db down");
  });
});

describe("late recordings", () => {
  it("are waited for by drainLateRounds", async () => {
    const recording = deferred<void>();
    let recorded = false;
    trackLate(
      recording.promise.then(() => {
        recorded = true;
      }),
    );
    const drained = watch(drainLateRounds());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(drained()).toBe("pending");
    recording.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(drained()).toEqual({ value: undefined });
    expect(recorded).toBe(true);
  });
});

describe("recordAsTheyEnd", () => {
  type Group = { values: string[]; last: boolean; complete: boolean };
  const recorder = () => {
    const groups: Group[] = [];
    const record = async (values: string[], s: { last: boolean; complete: boolean }) => {
      groups.push({ values, ...s });
    };
    return { groups, record };
  };

  it("records the rounds that ended while others are still in flight, a group per gap", async () => {
    const rounds = [deferred<string>(), deferred<string>(), deferred<string>()];
    const { groups, record } = recorder();
    const done = watch(
      recordAsTheyEnd(
        rounds.map((r) => r.promise),
        250,
        record,
        () => {},
      ),
    );
    rounds[0].resolve("a");
    await vi.advanceTimersByTimeAsync(0);
    // Recorded at once, while "b" and "c" are still in flight (a kill now would re-send only them).
    expect(groups).toEqual([{ values: ["a"], last: false, complete: true }]);
    rounds[1].resolve("b");
    await vi.advanceTimersByTimeAsync(100);
    // Within the gap: not yet, so rounds ending one by one do not cost a recording each.
    expect(groups).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(150);
    expect(groups[1]).toEqual({ values: ["b"], last: false, complete: true });
    rounds[2].resolve("c");
    await vi.advanceTimersByTimeAsync(250);
    expect(groups[2]).toEqual({ values: ["c"], last: true, complete: true });
    expect(done()).toEqual({ value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("says the last group is not complete when a round failed or an earlier group was not recorded", async () => {
    const failures: string[] = [];
    const rounds = [deferred<string>(), deferred<string>(), deferred<string>()];
    const groups: Group[] = [];
    let calls = 0;
    const record = async (values: string[], s: { last: boolean; complete: boolean }) => {
      if (calls++ === 0) throw new Error("db down");
      groups.push({ values, ...s });
    };
    const done = watch(
      recordAsTheyEnd(
        rounds.map((r) => r.promise),
        250,
        record,
        (e) => failures.push(e.message),
      ),
    );
    rounds[0].resolve("a");
    await vi.advanceTimersByTimeAsync(250);
    rounds[1].reject(new Error("round threw"));
    rounds[2].resolve("c");
    await vi.advanceTimersByTimeAsync(250);
    expect(groups).toEqual([{ values: ["c"], last: true, complete: false }]);
    expect(failures).toEqual(["db down", "round threw"]);
    expect(done()).toEqual({ value: undefined });
  });

  it("ends without a recording when the last rounds failed", async () => {
    const { groups, record } = recorder();
    const done = watch(recordAsTheyEnd([Promise.reject(new Error("x"))], 250, record, () => {}));
    await vi.advanceTimersByTimeAsync(0);
    expect(groups).toEqual([]);
    expect(done()).toEqual({ value: undefined });
  });
});
