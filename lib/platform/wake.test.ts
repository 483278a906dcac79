import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { coalesced } from "./wake";

describe("coalesced", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A send that records when it started and finishes when `finish` is called. */
  function recorder() {
    const started: number[] = [];
    const pending: (() => void)[] = [];
    const send = () => {
      started.push(Date.now());
      return new Promise<void>((resolve) => pending.push(resolve));
    };
    const finish = async () => {
      pending.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    };
    return { started, send, finish };
  }

  it("runs at once after a quiet spell", async () => {
    const r = recorder();
    const wake = coalesced(r.send, 20, () => Date.now());
    wake();
    expect(r.started).toEqual([Date.now()]);
    await r.finish();
    await vi.advanceTimersByTimeAsync(50);
    const t = Date.now();
    wake();
    expect(r.started).toEqual([t - 50, t]);
  });

  it("runs once more after calls made while a run is in flight, no sooner than the gap after the last start", async () => {
    const r = recorder();
    const wake = coalesced(r.send, 20, () => Date.now());
    const t0 = Date.now();
    wake();
    for (let i = 0; i < 10; i++) wake();
    await r.finish();
    // The first run is done after 0 ms: the follow-up waits for the gap.
    expect(r.started).toEqual([t0]);
    await vi.advanceTimersByTimeAsync(19);
    expect(r.started).toEqual([t0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.started).toEqual([t0, t0 + 20]);
    await r.finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(r.started).toHaveLength(2);
  });

  it("covers calls made while a run is waiting for its turn with that run", async () => {
    const r = recorder();
    const wake = coalesced(r.send, 20, () => Date.now());
    const t0 = Date.now();
    wake();
    await r.finish();
    await vi.advanceTimersByTimeAsync(5);
    wake(); // waits until t0 + 20
    await vi.advanceTimersByTimeAsync(5);
    wake(); // covered by the same waiting run
    await vi.advanceTimersByTimeAsync(10);
    expect(r.started).toEqual([t0, t0 + 20]);
    await r.finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(r.started).toHaveLength(2);
  });

  it("keeps going after a failed run", async () => {
    const started: number[] = [];
    const wake = coalesced(
      async () => {
        started.push(Date.now());
        throw new Error("database down");
      },
      20,
      () => Date.now(),
    );
    wake();
    await vi.advanceTimersByTimeAsync(0);
    wake();
    await vi.advanceTimersByTimeAsync(20);
    expect(started).toHaveLength(2);
  });
});
