import { describe, expect, it } from "vitest";
import type { Classification } from "../webhooks/outcome";
import { decideRound, roundUrls, type UrlResult } from "./plan";

const ok: Classification = { outcome: "success", errorKind: null, errorText: null };
const retry: Classification = { outcome: "retry", errorKind: "http", errorText: "HTTP 503" };
const fail: Classification = { outcome: "failed", errorKind: "http", errorText: "HTTP 400" };
const r = (url: string, classification: Classification, status: number | null = 200): UrlResult => ({
  url,
  attempted: true,
  classification,
  status,
});

const now = new Date("2026-01-01T00:00:10Z");
const common = {
  someUrlFailedBefore: false,
  rounds: 0,
  firstAttemptAt: new Date("2026-01-01T00:00:00Z"),
  now,
  windowMinutes: 240,
  policy: { baseMs: 1000, maxStepMs: 60_000 },
  random: () => 0.5,
};

describe("decideRound, mode any", () => {
  it("is delivered on the first 2xx and the others are not retried (logged failed)", () => {
    const d = decideRound({ ...common, mode: "any", results: [r("a", retry, 503), r("b", ok), r("c", fail, 400)] });
    expect(d).toMatchObject({ state: "delivered", pendingUrls: [], nextAttemptAt: null, lastError: null });
    expect(Object.fromEntries(d.loggedOutcome)).toEqual({ a: "failed", b: "success", c: "failed" });
  });

  it("a delivered delivery shows the status that delivered it, not a sibling URL's 500 (issue 13.10)", () => {
    const d = decideRound({ ...common, mode: "any", results: [r("a", ok, 200), r("b", retry, 500)], lastStatusBefore: 503 });
    expect(d).toMatchObject({ state: "delivered", lastStatus: 200, lastError: null });
    const later = decideRound({ ...common, mode: "any", results: [r("a", retry, 500), r("b", ok, 204)] });
    expect(later).toMatchObject({ state: "delivered", lastStatus: 204 });
  });

  it("names the URL a template was rendered to, not the template, in lastError (issue 52 item 7)", () => {
    const templated: UrlResult = {
      url: "https://a.example/users/{{userId}}",
      sentTo: "https://a.example/users/u-7",
      attempted: true,
      classification: fail,
      status: 400,
    };
    const d = decideRound({ ...common, mode: "any", results: [templated, r("b", retry, 503)] });
    expect(d.lastError).toBe("https://a.example/users/u-7: HTTP 400");
    expect(d.pendingUrls).toEqual(["b"]);
  });

  it("a pending or failed delivery shows the status of the failure its lastError names", () => {
    const timeout: Classification = { outcome: "retry", errorKind: "timeout", errorText: "timeout after 5 s" };
    const d = decideRound({ ...common, mode: "any", results: [r("a", retry, 503), r("b", fail, 400)] });
    expect(d).toMatchObject({ state: "pending", lastStatus: 503, lastError: "a: HTTP 503" });
    expect(decideRound({ ...common, mode: "any", results: [r("a", timeout, null)], lastStatusBefore: 503 })).toMatchObject({
      lastStatus: null,
      lastError: "timeout after 5 s",
    });
  });

  it("retries only the URLs that may still succeed", () => {
    const d = decideRound({ ...common, mode: "any", results: [r("a", retry, 503), r("b", fail, 400)] });
    expect(d.state).toBe("pending");
    expect(d.pendingUrls).toEqual(["a"]);
    expect(d.nextAttemptAt!.getTime()).toBeGreaterThan(now.getTime());
    expect(d.loggedOutcome.get("a")).toBe("retry");
  });

  it("a retry waits for the turn its saturated origin gave it, past its backoff and even past the window", () => {
    // backoff: 1 s base, attempt 1, random 0.5 → 750 ms; the origin's deferred requests go first for 25 s.
    const queued = { ...r("a", retry, null), turnInMs: 25_000 };
    const d = decideRound({ ...common, mode: "any", results: [queued] });
    expect(d).toMatchObject({ state: "pending", pendingUrls: ["a"] });
    expect(d.nextAttemptAt!.getTime()).toBe(now.getTime() + 25_000);
    const unqueued = decideRound({ ...common, mode: "any", results: [r("a", retry, null)] });
    expect(unqueued.nextAttemptAt!.getTime()).toBe(now.getTime() + 1_000);
    // A retry the window still allows keeps its attempt, however late its turn.
    const lastMinute = decideRound({ ...common, windowMinutes: 1, mode: "any", results: [{ ...queued, turnInMs: 90_000 }] });
    expect(lastMinute).toMatchObject({ state: "pending" });
    expect(lastMinute.nextAttemptAt!.getTime()).toBe(now.getTime() + 90_000);
  });

  it("fails with the reason when no URL can succeed", () => {
    const d = decideRound({ ...common, mode: "any", results: [r("a", fail, 400)] });
    expect(d).toMatchObject({ state: "failed", lastError: "HTTP 400", lastStatus: 400 });
  });

  it("fails with the last reason once the window is over", () => {
    const d = decideRound({
      ...common,
      mode: "any",
      windowMinutes: 1,
      now: new Date("2026-01-01T00:00:59.900Z"),
      results: [r("a", retry, 503)],
    });
    expect(d.state).toBe("failed");
    expect(d.lastError).toMatch(/HTTP 503.*retry window of 1 min ended/);
    expect(d.loggedOutcome.get("a")).toBe("failed");
  });

  it("reschedules soon without counting an attempt when every URL was deferred", () => {
    const d = decideRound({ ...common, mode: "any", results: [{ url: "a", attempted: false }] });
    expect(d).toMatchObject({ state: "pending", attempted: false, pendingUrls: ["a"] });
  });

  it("brings a deferred round back at the latest turn its origins gave it, not sooner than the defer step", () => {
    const now = new Date("2026-01-01T00:00:10.200Z");
    const later = decideRound({ ...common, mode: "any", now, results: [{ url: "a", attempted: false, turnInMs: 4_500 }] });
    expect(later.nextAttemptAt?.toISOString()).toBe("2026-01-01T00:00:15.000Z");
    const soon = decideRound({ ...common, mode: "any", now, results: [{ url: "a", attempted: false, turnInMs: 10 }] });
    expect(soon.nextAttemptAt?.toISOString()).toBe("2026-01-01T00:00:12.000Z");
  });
});

describe("decideRound, mode every", () => {
  it("keeps retrying the URLs that have not succeeded, each on its own", () => {
    const d = decideRound({ ...common, mode: "every", results: [r("a", ok), r("b", retry, 503), r("c", ok)] });
    expect(d).toMatchObject({ state: "pending", pendingUrls: ["b"] });
  });

  it("is delivered when the last pending URL succeeds, with that URL's status", () => {
    expect(decideRound({ ...common, mode: "every", rounds: 2, lastStatusBefore: 503, results: [r("b", ok, 201)] })).toMatchObject({
      state: "delivered",
      lastStatus: 201,
    });
  });

  it("ends failed when one URL failed for good, after the others are done", () => {
    const first = decideRound({ ...common, mode: "every", results: [r("a", ok), r("b", fail, 400), r("c", retry, 503)] });
    expect(first).toMatchObject({ state: "pending", pendingUrls: ["c"] });
    const second = decideRound({
      ...common,
      mode: "every",
      rounds: 1,
      someUrlFailedBefore: true,
      lastErrorBefore: first.lastError,
      results: [r("c", ok)],
    });
    expect(second.state).toBe("failed");
    expect(second.lastError).toMatch(/b: HTTP 400/);
  });
});

describe("roundUrls", () => {
  it("uses pending URLs still configured, else all", () => {
    expect(roundUrls(["a", "b"], null)).toEqual(["a", "b"]);
    expect(roundUrls(["a", "b"], ["b"])).toEqual(["b"]);
    expect(roundUrls(["a", "b"], ["gone"])).toEqual(["a", "b"]);
  });
});

describe("decideRound without retries (a test-send)", () => {
  it("fails where it would retry, and logs the attempt failed", () => {
    const d = decideRound({ ...common, mode: "any", results: [r("a", retry, 503)], retries: false });
    expect(d).toMatchObject({ state: "failed", nextAttemptAt: null, lastError: "HTTP 503", lastStatus: 503 });
    expect(Object.fromEntries(d.loggedOutcome)).toEqual({ a: "failed" });
  });

  it("is delivered on a 2xx and a deferred URL still comes back (a deferral is not an attempt)", () => {
    expect(decideRound({ ...common, mode: "any", results: [r("a", ok, 204)], retries: false })).toMatchObject({ state: "delivered" });
    const d = decideRound({ ...common, mode: "every", results: [r("a", retry, 500), { url: "b", attempted: false }], retries: false });
    expect(d).toMatchObject({ state: "pending", pendingUrls: ["b"] });
    expect(Object.fromEntries(d.loggedOutcome)).toEqual({ a: "failed" });
  });
});
