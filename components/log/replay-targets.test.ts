import { describe, expect, it } from "vitest";
import { replayTargets } from "./replay-targets";

const d = (destinationId: string, state: "pending" | "delivered" | "failed", replayNumber = 0) => ({
  id: `${destinationId}-${replayNumber}`,
  destinationId,
  destinationName: destinationId,
  state,
  attemptCount: 1,
  lastError: null,
  lastStatus: null,
  nextAttemptAt: null,
  deliveredAt: null,
  replayOf: replayNumber ? `${destinationId}-${replayNumber - 1}` : null,
  replayNumber,
  batchId: null,
  held: null,
  holdReleasedAt: null,
});

describe("replayTargets (docs/webhooks.md#replay)", () => {
  const deliveries = [d("A", "delivered"), d("B", "failed"), d("C", "failed"), d("C", "delivered", 1), d("P", "pending")];

  it("by default: only the destinations whose latest delivery failed", () => {
    expect(replayTargets(deliveries, false).map((x) => x.id)).toEqual(["B-0"]);
  });

  it("everywhere: the delivered ones too (an explicit choice), never a pending one", () => {
    expect(replayTargets(deliveries, true).map((x) => x.id)).toEqual(["A-0", "B-0", "C-1"]);
  });
});
