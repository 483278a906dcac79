import { describe, expect, it } from "vitest";
import { backoffDelayMs, nextAttemptAt } from "./backoff";

const policy = { baseMs: 5_000, maxStepMs: 30 * 60_000 };

describe("backoff", () => {
  it("starts within seconds, doubles, and is capped per step", () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(2_500);
    expect(backoffDelayMs(1, policy, () => 1)).toBe(5_000);
    expect(backoffDelayMs(2, policy, () => 1)).toBe(10_000);
    expect(backoffDelayMs(5, policy, () => 1)).toBe(80_000);
    expect(backoffDelayMs(30, policy, () => 1)).toBe(30 * 60_000);
    expect(backoffDelayMs(1000, policy, () => 0.5)).toBe(22.5 * 60_000);
  });

  it("jitters between half and the full step", () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffDelayMs(3, policy);
      expect(d).toBeGreaterThanOrEqual(10_000);
      expect(d).toBeLessThanOrEqual(20_000);
    }
  });

  it("keeps retrying for the whole 4-hour window and then stops", () => {
    const first = new Date("2026-01-01T00:00:00Z");
    let now = first;
    let attempt = 1;
    let stopped = false;
    // Bounded, so that a window that never closes fails here instead of looping forever (issue 40).
    for (let rounds = 0; rounds < 1_000 && !stopped; rounds++) {
      const at = nextAttemptAt({ attempt, now, firstAttemptAt: first, windowMinutes: 240, policy, random: () => 0.5 });
      if (at) {
        now = at;
        attempt++;
      } else stopped = true;
    }
    expect(stopped).toBe(true);
    expect(now.getTime() - first.getTime()).toBeGreaterThan(3 * 3600_000);
    expect(now.getTime() - first.getTime()).toBeLessThanOrEqual(4 * 3600_000);
    expect(attempt).toBeGreaterThan(10);
    expect(attempt).toBeLessThan(30);
  });

  it("honours Retry-After when longer than the backoff, capped per step", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const at = nextAttemptAt({ attempt: 1, now, firstAttemptAt: now, windowMinutes: 240, retryAfterMs: 60_000, policy, random: () => 0 });
    expect(at!.getTime() - now.getTime()).toBe(60_000);
    const capped = nextAttemptAt({
      attempt: 1,
      now,
      firstAttemptAt: now,
      windowMinutes: 240,
      retryAfterMs: 10 * 3600_000,
      policy,
      random: () => 0,
    });
    expect(capped!.getTime() - now.getTime()).toBe(30 * 60_000);
  });

  it("returns null when the next attempt would fall after the window", () => {
    const first = new Date("2026-01-01T00:00:00Z");
    const now = new Date(first.getTime() + 58_000);
    expect(nextAttemptAt({ attempt: 4, now, firstAttemptAt: first, windowMinutes: 1, policy, random: () => 0 })).toBeNull();
  });
});
