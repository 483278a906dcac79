import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prepareShape } from "../webhooks/request-shape";
import { endOf, planDelivery, type PlanFacts } from "./fate";
import type { LoadedDelivery } from "./load";
import { admitDeliveries } from "./policy";

const URLS = ["https://a.example/hook", "https://b.example/hook", "https://c.example/users/{{userId}}"];

const message = (userId: string | null) => ({
  type: "track",
  messageId: "m1",
  userId,
  anonymousId: userId === null ? "anon" : null,
  timestamp: "2026-01-01T00:00:00.000Z",
  receivedAt: "2026-01-01T00:00:00.000Z",
  sentAt: null,
  payload: { type: "track", event: "E", userId, properties: {} },
});

/** Every fact the plan reads, over its whole range: a URL template that fails on its userId ("." or ""), all URLs disabled, and the rest. */
const facts: fc.Arbitrary<PlanFacts> = fc
  .record({
    erased: fc.boolean(),
    test: fc.boolean(),
    targeted: fc.boolean(),
    pending: fc.subarray(URLS),
    inBatch: fc.boolean(),
    orderKey: fc.option(fc.constantFrom("u1", "u2"), { nil: null }),
    holdReleased: fc.boolean(),
    userId: fc.constantFrom("u1", ".", "", null),
    enabled: fc.boolean(),
    urls: fc.subarray(URLS),
    batch: fc.boolean(),
    ordering: fc.constantFrom("none", "perUser"),
    perSecond: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
    concurrency: fc.option(fc.integer({ min: 1, max: 10 }), { nil: null }),
  })
  .map((f) => ({
    erased: f.erased,
    test: f.test,
    targetUrls: f.targeted ? [URLS[0]] : null,
    pendingUrls: f.pending.length > 0 ? f.pending : null,
    batchId: f.inBatch ? "batch-1" : null,
    orderKey: f.orderKey,
    holdReleased: f.holdReleased,
    message: message(f.userId),
    destination: {
      urls: f.urls,
      disabledUrls: URLS.filter((u) => !f.urls.includes(u)),
      enabled: f.enabled,
      batch: f.batch ? { size: 10, maxWaitMs: 1000 } : null,
      ordering: f.ordering,
      rateLimit: { perSecond: f.perSecond, concurrency: f.concurrency },
      shape: prepareShape({ urls: f.urls }),
      fieldLists: null,
    } as unknown as LoadedDelivery["destination"],
  }));

const hasLimit = (f: PlanFacts) => f.destination.rateLimit.perSecond !== null || f.destination.rateLimit.concurrency !== null;

describe("a fetched delivery's plan: one decision the steps obey (docs/architecture.md#one-plan)", () => {
  it("an end comes before everything: a delivery that ends unsent is never gated, never joins, never takes a token or a lease", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const plan = planDelivery(f);
        if (endOf(plan) !== null) {
          expect(plan.limited).toBe(false);
          expect(plan.ordered).toBe(false);
          expect(plan.go === "end" || plan.go === "batch").toBe(true);
        }
        // an erased message is never sent; a disabled destination sends only a test-send's targeted round
        if (f.erased) expect(endOf(plan)).not.toBeNull();
        if (!f.destination.enabled && !f.targetUrls) expect(endOf(plan)).not.toBeNull();
        if (f.destination.urls.length === 0 && !f.targetUrls) expect(endOf(plan)).not.toBeNull();
      }),
      { numRuns: 2000, seed: 47 },
    );
  });

  it("the rate limit is asked exactly for what is sent and counted: not a test-send, not an end, a destination with a limit", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const plan = planDelivery(f);
        expect(plan.limited).toBe(endOf(plan) === null && !f.test && hasLimit(f));
      }),
      { numRuns: 2000, seed: 48 },
    );
  });

  it("batching: a batch's delivery goes with its batch; only a batching destination's new, untargeted delivery with a body joins", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const plan = planDelivery(f);
        if (f.batchId !== null) expect(plan.go).toBe("batch");
        if (plan.go === "join") {
          expect(f.destination.batch).not.toBeNull();
          expect(f.test || f.targetUrls !== null || f.batchId !== null).toBe(false);
          expect(plan.part.startsWith("{")).toBe(true);
        }
        // a URL template that cannot render this event's userId goes alone: its round logs why
        if (f.destination.batch && plan.go === "alone" && !f.test && !f.targetUrls)
          expect(
            f.destination.urls.some((u) => u.includes("{{")) &&
              (f.message.userId === "." || f.message.userId === "" || f.message.userId === null),
          ).toBe(true);
      }),
      { numRuns: 2000, seed: 49 },
    );
  });

  it("the ordering gate judges only an ordering destination's keyed delivery that may be sent and was not let go by the hold limit", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const plan = planDelivery(f);
        const expected =
          endOf(plan) === null && f.batchId === null && f.orderKey !== null && f.destination.ordering === "perUser" && !f.holdReleased;
        expect(plan.ordered).toBe(expected);
      }),
      { numRuns: 2000, seed: 50 },
    );
  });

  it("names its reasons", () => {
    const base = fc.sample(facts, { numRuns: 1, seed: 1 })[0];
    const d = (over: Partial<PlanFacts>, dest: Partial<LoadedDelivery["destination"]> = {}): PlanFacts => ({
      ...base,
      erased: false,
      test: false,
      targetUrls: null,
      pendingUrls: null,
      batchId: null,
      ...over,
      destination: { ...base.destination, urls: [URLS[0]], disabledUrls: [], enabled: true, ...dest },
    });
    expect(planDelivery(d({ erased: true }))).toMatchObject({ go: "end", reason: "message was erased by a deletion request" });
    expect(planDelivery(d({}, { enabled: false }))).toMatchObject({ go: "end", reason: "destination is disabled" });
    expect(planDelivery(d({}, { urls: [], disabledUrls: [URLS[0]] }))).toMatchObject({
      go: "end",
      reason: "the URLs it was for are disabled after failing for days",
    });
    expect(planDelivery(d({ batchId: "b" }, { enabled: false }))).toMatchObject({ go: "batch", end: "destination is disabled" });
    expect(planDelivery(d({ targetUrls: ["https://t.example/x"] }, { enabled: false })).go).toBe("alone");
  });

  it("the limiter is asked only for deliveries whose plan is limited: every URL disabled takes no token (before, it took one, then failed unsent)", async () => {
    const allDisabled = { urls: [], disabledUrls: [URLS[0]], enabled: true, rateLimit: { perSecond: 10, concurrency: 2 } };
    const f = { ...fc.sample(facts, { numRuns: 1, seed: 2 })[0], erased: false, test: false, targetUrls: null, batchId: null };
    const facts2 = { ...f, destination: { ...f.destination, ...allDisabled } } as PlanFacts;
    const d = { ...facts2, id: "d1", destinationId: "t1", plan: planDelivery(facts2) } as LoadedDelivery;
    expect(d.plan.go).toBe("end");
    // No database in unit tests: asking the limiter (a Postgres statement) would throw.
    const admission = await admitDeliveries([d]);
    expect(admission.turns).toEqual([null]);
    expect(admission.holds("d1")).toBe(false);
  });
});
