import { describe, expect, it } from "vitest";
import { type ChainAttempt, groupAttemptChain, replayOutcome } from "./chain";

let id = 0;
const at = (destinationId: string, url: string, attemptNumber: number, extra: Partial<ChainAttempt> = {}): ChainAttempt => ({
  id: String(++id),
  destinationId,
  destinationName: destinationId === "d1" ? "Orders" : "Billing",
  url,
  attemptNumber,
  startedAt: new Date(Date.UTC(2026, 0, 1, 12, 0, id)).toISOString(),
  ...extra,
});

describe("attempt chain grouping", () => {
  it("keeps two destinations with the same URL apart, each labelled with its destination", () => {
    const groups = groupAttemptChain([at("d1", "https://c/x", 1), at("d2", "https://c/x", 1)]);
    expect(groups.map((g) => [g.destinationName, g.url, g.count])).toEqual([
      ["Orders", "https://c/x", 1],
      ["Billing", "https://c/x", 1],
    ]);
  });

  it("splits a URL's attempts into runs where the numbering restarts: each replay is its own run", () => {
    const attempts = [
      at("d1", "https://a", 1),
      at("d1", "https://b", 1),
      at("d1", "https://a", 2),
      at("d1", "https://a", 3),
      at("d1", "https://a", 1), // replay 1
      at("d1", "https://a", 2),
      at("d1", "https://a", 1), // replay 2
    ];
    const [a, b] = groupAttemptChain(attempts);
    expect(a.count).toBe(6);
    expect(a.runs.map((r) => [r.replay, r.attempts.map((x) => x.attemptNumber)])).toEqual([
      [0, [1, 2, 3]],
      [1, [1, 2]],
      [2, [1]],
    ]);
    expect(a.runs[1].startedAt).toBe(attempts[4].startedAt);
    expect(b.runs).toHaveLength(1);
  });

  it("starts a run at another delivery of the same destination, even when the numbers keep rising", () => {
    const groups = groupAttemptChain([
      at("d1", "https://a", 1, { deliveryId: "x" }),
      at("d1", "https://a", 2, { deliveryId: "x" }),
      at("d1", "https://a", 3, { deliveryId: "y" }),
    ]);
    expect(groups[0].runs.map((r) => r.attempts.length)).toEqual([2, 1]);
  });

  it("numbers a run by its delivery's replay number when the message detail gives it", () => {
    const groups = groupAttemptChain(
      [at("d1", "https://a", 1, { deliveryId: "x" }), at("d1", "https://a", 1, { deliveryId: "z" })],
      new Map([
        ["x", 0],
        ["z", 2],
      ]),
    );
    expect(groups[0].runs.map((r) => r.replay)).toEqual([0, 2]);
  });

  it("has nothing to show for no attempts", () => {
    expect(groupAttemptChain([])).toEqual([]);
  });
});

describe("replayOutcome", () => {
  it("says Replaying while a replayed delivery is pending, then what it came to", () => {
    expect(replayOutcome([{ state: "failed", replayNumber: 0 }], 1)).toBe("Replaying to 1 destination…");
    expect(replayOutcome([{ state: "pending", replayNumber: 1 }], 1)).toBe("Replaying to 1 destination…");
    expect(replayOutcome([{ state: "delivered", replayNumber: 1 }], 1)).toBe("Replayed: 1 destination delivered.");
    expect(
      replayOutcome(
        [
          { state: "delivered", replayNumber: 2 },
          { state: "failed", replayNumber: 1 },
        ],
        2,
      ),
    ).toBe("Replayed: 1 destination delivered, 1 failed.");
  });
});
