import { describe, expect, it } from "vitest";
import { MIN_ATTEMPTS_FOR_RATE, judgeEndpoint, type UrlStats } from "./judge";

const now = new Date("2026-11-22T12:00:00Z");
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const thresholds = { failingMinutes: 15, successRatePercent: 50, disableAfterDays: 5 };
const healthy: UrlStats = { failingSince: null, hourAttempts: 40, hourSuccesses: 40 };
const judge = (stats: UrlStats, open: Parameters<typeof judgeEndpoint>[0]["open"] = null, disabled = false) =>
  judgeEndpoint({ now, stats, thresholds, open, disabled });

describe("judgeEndpoint", () => {
  it("alerts a URL failing with no success for N minutes, not before", () => {
    expect(judge({ failingSince: ago(14), hourAttempts: 3, hourSuccesses: 0 })).toEqual({ action: "none" });
    expect(judge({ failingSince: ago(15), hourAttempts: 3, hourSuccesses: 0 })).toEqual({
      action: "open",
      reason: "failing",
      disable: false,
    });
  });

  it("alerts a success rate under the threshold over the hour, once there are enough attempts to judge", () => {
    const low = { failingSince: ago(1), hourAttempts: MIN_ATTEMPTS_FOR_RATE, hourSuccesses: 4 };
    expect(judge(low)).toEqual({ action: "open", reason: "success_rate", disable: false });
    expect(judge({ ...low, hourAttempts: MIN_ATTEMPTS_FOR_RATE - 1, hourSuccesses: 3 })).toEqual({ action: "none" });
    expect(judgeEndpoint({ now, stats: low, thresholds: { ...thresholds, successRatePercent: 0 }, open: null, disabled: false })).toEqual({
      action: "none",
    });
  });

  it("disables after D days of continuous failure, once", () => {
    const days = { failingSince: ago(5 * 24 * 60), hourAttempts: 2, hourSuccesses: 0 };
    expect(judge(days)).toEqual({ action: "open", reason: "failing", disable: true });
    expect(judge(days, { reason: "failing", disabledAt: null })).toEqual({ action: "disable" });
    expect(judge(days, { reason: "failing", disabledAt: ago(1) })).toEqual({ action: "none" });
    expect(judge({ ...days, failingSince: ago(5 * 24 * 60 - 1) }, { reason: "failing", disabledAt: null })).toEqual({ action: "none" });
  });

  it("resolves when the newest attempt succeeded and the rate is back, and not while failures continue", () => {
    const open = { reason: "failing" as const, disabledAt: null };
    expect(judge(healthy, open)).toEqual({ action: "resolve" });
    expect(judge({ failingSince: ago(1), hourAttempts: 40, hourSuccesses: 39 }, open)).toEqual({ action: "none" });
    expect(judge({ failingSince: null, hourAttempts: 20, hourSuccesses: 5 }, { reason: "success_rate", disabledAt: null })).toEqual({
      action: "none",
    });
  });

  it("leaves a disabled URL alone until a person re-enables it", () => {
    expect(judge(healthy, { reason: "failing", disabledAt: ago(10) }, true)).toEqual({ action: "none" });
    expect(judge({ failingSince: ago(60), hourAttempts: 0, hourSuccesses: 0 }, null, true)).toEqual({ action: "none" });
  });
});
