import { describe, expect, it } from "vitest";
import { throttleTurns } from "./policy";

describe("throttleTurns (docs/webhooks.md#rate-limits)", () => {
  it("spreads the deliveries a take did not grant one token apart, ending at the turn it booked", () => {
    // 20/s, 4 waiting, booked up to 700 ms from now: theirs are the last four tokens of that booking.
    expect(throttleTurns({ waiting: 4, bookedMs: 700, limit: { perSecond: 20, concurrency: null } })).toEqual([550, 600, 650, 700]);
  });

  it("sends a concurrency-only backlog back a group of `concurrency` at a time", () => {
    expect(throttleTurns({ waiting: 5, bookedMs: 0, limit: { perSecond: null, concurrency: 2 } })).toEqual([1000, 1000, 2000, 2000, 3000]);
  });

  it("books a destination with both limits by its rate: its concurrency is held in the worker (lease-queue.ts)", () => {
    expect(throttleTurns({ waiting: 3, bookedMs: 3000, limit: { perSecond: 1, concurrency: 1 } })).toEqual([1000, 2000, 3000]);
    expect(throttleTurns({ waiting: 2, bookedMs: 100, limit: { perSecond: 20, concurrency: 1 } })).toEqual([50, 100]);
  });

  it("gives nothing when nothing waits", () => {
    expect(throttleTurns({ waiting: 0, bookedMs: 0, limit: { perSecond: 5, concurrency: 5 } })).toEqual([]);
  });
});
