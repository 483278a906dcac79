// Tracking plans end to end (docs/tracking-plans.md): the Management API (schemas refused with the
// compiler's reason, versions, audit, Segment import/export) and enforcement in two ingest
// processes in front of `next start`, fed by a real client (@segment/analytics-node): what is
// stored, routed, shown in the debugger and counted in /metrics for flag, block and unplanned modes,
// and a plan change taking effect on the next call in every process.

import { Analytics } from "@segment/analytics-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMetrics, sumOf } from "./harness/metrics-text";
import { type ApiClient, type Proc, startIngest, startStack, type Stack, waitFor } from "./harness/stack";
import { createDestination, createSource, type Db, deliveriesByMessage, openDb, postTracking, type TestSource } from "./harness/tracking";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const ENV = { EVENTRAIL_METRICS_TOKEN: METRICS_TOKEN };

let stack: Stack;
let api: ApiClient;
let other: ApiClient;
let db: Db;
let ingestA: Proc & { url: string };
let ingestB: Proc & { url: string };
let source: TestSource;
let destinationId: string;

beforeAll(async () => {
  stack = await startStack({ workers: 0, env: ENV });
  [ingestA, ingestB] = await Promise.all([
    startIngest(stack.databaseUrl, { webUrl: stack.app.url, env: ENV }),
    startIngest(stack.databaseUrl, { webUrl: stack.app.url, env: ENV }),
  ]);
  api = await stack.newWorkspace("plans");
  other = await stack.newWorkspace("other");
  db = openDb(stack.databaseUrl);
  source = await createSource(api, "App");
  // No worker runs: deliveries stay as rows, which is what routing is judged by here.
  destinationId = await createDestination(db, { workspaceId: source.workspaceId, name: "Hook", sourceIds: [source.id] });
});
afterAll(async () => {
  await Promise.all([ingestA?.stop(), ingestB?.stop()]);
  await db?.end();
  await stack?.stop();
});

const rules = [
  {
    type: "track",
    event: "Order Completed",
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { total: { type: "number", minimum: 0 }, currency: { enum: ["EUR", "USD"] } },
      required: ["total"],
    },
  },
  {
    type: "identify",
    schema: { $schema: "http://json-schema.org/draft-07/schema#", properties: { email: { type: "string", format: "email" } } },
  },
  { type: "group", schema: { required: ["plan"] } },
  { type: "page", event: "Pricing", schema: { properties: { path: { const: "/pricing" } } } },
  { type: "screen", event: null, schema: { properties: { variant: { type: "string" } } } },
];

/** Sends calls through @segment/analytics-node to one ingest process, each with a known messageId. */
async function send(baseUrl: string, calls: { kind: "track" | "identify" | "group" | "page" | "screen"; msg: Record<string, unknown> }[]) {
  const analytics = new Analytics({ writeKey: source.writeKey, host: baseUrl, flushAt: 100, flushInterval: 60_000, maxRetries: 0 });
  const errors: unknown[] = [];
  analytics.on("error", (e) => errors.push(e));
  for (const c of calls) (analytics[c.kind] as (m: Record<string, unknown>) => void).call(analytics, c.msg);
  await analytics.closeAndFlush({ timeout: 30_000 });
  expect(errors).toEqual([]);
}

type Row = { message_id: string; violations: { path: string; rule: string; message: string }[] | null; blocked: boolean };
async function rowsById(ids: string[]): Promise<Map<string, Row>> {
  const { rows } = await db.query<Row>(
    "SELECT message_id, violations, blocked FROM messages WHERE source_id = $1 AND message_id = ANY($2)",
    [source.id, ids],
  );
  return new Map(rows.map((r) => [r.message_id, r]));
}

async function scrape() {
  const res = await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return parseMetrics(await res.text());
}

let planId: string;

describe("tracking plans API", () => {
  it("refuses a schema that does not compile, with the compiler's reason at the rule's field", async () => {
    const bad = await api.request("POST", "/api/tracking-plans", {
      name: "Broken",
      rules: [rules[0], { type: "track", event: "Signed Up", schema: { type: "objekt" } }],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(["rules.1.schema"]);
    expect(bad.body.error.fields["rules.1.schema"][0]).toMatch(/type/);

    const slow = await api.request("POST", "/api/tracking-plans", {
      name: "Slow",
      rules: [{ type: "track", event: "E", schema: { properties: { a: { pattern: "^(a|aa)+(b+)+$" } } } }],
    });
    expect(slow.status).toBe(422);
    expect(slow.body.error.fields["rules.0.schema"][0]).toMatch(/exponential/);

    const remote = await api.request("POST", "/api/tracking-plans", {
      name: "Remote",
      rules: [{ type: "identify", schema: { $ref: "https://example.com/s.json" } }],
    });
    expect(remote.status).toBe(422);

    expect(await api.post("/api/tracking-plans/validate-schema", { schema: { type: "number", minimum: "0" } })).toEqual({
      ok: false,
      problem: expect.stringMatching(/minimum/),
    });
    expect(await api.post("/api/tracking-plans/validate-schema", { schema: { type: "number" } })).toEqual({ ok: true, problem: null });
    expect((await api.get("/api/tracking-plans")).trackingPlans).toEqual([]);
  });

  it("creates a plan connected to a source, versions each change and audits who changed what", async () => {
    const created = await api.post("/api/tracking-plans", { name: "App plan", rules, sourceIds: [source.id] });
    planId = created.id;
    expect(created).toMatchObject({ name: "App plan", violations: "flag", unplanned: "allow", sourceIds: [source.id], version: 1 });
    expect(created.rules).toHaveLength(5);

    const renamed = await api.patch(`/api/tracking-plans/${planId}`, { name: "App plan v2" });
    expect(renamed.version).toBe(2);
    // nothing changes: no new version
    expect((await api.patch(`/api/tracking-plans/${planId}`, { name: "App plan v2" })).version).toBe(2);

    const { events } = await api.get(`/api/audit?resource=tracking_plan&resourceId=${planId}`);
    expect(events.map((e: { action: string }) => e.action)).toEqual(["tracking_plan.update", "tracking_plan.create"]);
    expect(events[0].changes).toEqual({ name: { before: "App plan", after: "App plan v2" }, version: { before: 1, after: 2 } });
    expect(Object.keys(events[1].changes.rules.after)).toContain("track Order Completed");

    expect((await other.request("GET", `/api/tracking-plans/${planId}`)).status).toBe(404);
    const foreign = await other.request("POST", "/api/tracking-plans", { name: "x", sourceIds: [source.id] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.fields["sourceIds.0"]).toBeDefined();
  });

  it("a source that moves to another plan gives the plan it leaves a new version and an audit entry", async () => {
    const moving = await createSource(api, "Moving");
    const a = await api.post("/api/tracking-plans", { name: "Plan A", rules: [], sourceIds: [moving.id] });
    const b = await api.post("/api/tracking-plans", { name: "Plan B", rules: [], sourceIds: [moving.id] });
    expect(b.sourceIds).toEqual([moving.id]);
    const left = await api.get(`/api/tracking-plans/${a.id}`);
    expect(left).toMatchObject({ sourceIds: [], version: 2 });
    const { events } = await api.get(`/api/audit?resource=tracking_plan&resourceId=${a.id}`);
    expect(events.map((e: { action: string }) => e.action)).toEqual(["tracking_plan.update", "tracking_plan.create"]);
    expect(events[0].changes).toEqual({ sourceIds: { before: [moving.id], after: [] }, version: { before: 1, after: 2 } });
    // And back by an edit of A: B leaves it the same way.
    await api.patch(`/api/tracking-plans/${a.id}`, { sourceIds: [moving.id] });
    expect(await api.get(`/api/tracking-plans/${b.id}`)).toMatchObject({ sourceIds: [], version: 2 });
  });
});

describe("enforcement at ingest", () => {
  const good = (id: string) => [
    {
      kind: "track" as const,
      msg: { messageId: `${id}-t`, userId: "u1", event: "Order Completed", properties: { total: 5, currency: "EUR" } },
    },
    { kind: "identify" as const, msg: { messageId: `${id}-i`, userId: "u1", traits: { email: "ada@example.com" } } },
    { kind: "group" as const, msg: { messageId: `${id}-g`, userId: "u1", groupId: "acme", traits: { plan: "pro" } } },
    { kind: "page" as const, msg: { messageId: `${id}-p`, userId: "u1", name: "Pricing", properties: { path: "/pricing" } } },
    { kind: "screen" as const, msg: { messageId: `${id}-s`, userId: "u1", name: "Home", properties: { variant: "b" } } },
  ];
  const bad = (id: string) => [
    {
      kind: "track" as const,
      msg: { messageId: `${id}-t`, userId: "u1", event: "Order Completed", properties: { total: "5", currency: "GBP" } },
    },
    { kind: "identify" as const, msg: { messageId: `${id}-i`, userId: "u1", traits: { email: "not-an-email" } } },
    { kind: "group" as const, msg: { messageId: `${id}-g`, userId: "u1", groupId: "acme", traits: {} } },
    { kind: "page" as const, msg: { messageId: `${id}-p`, userId: "u1", name: "Pricing", properties: { path: "/" } } },
    { kind: "screen" as const, msg: { messageId: `${id}-s`, userId: "u1", name: "Home", properties: { variant: 2 } } },
  ];
  const ids = (calls: { msg: Record<string, unknown> }[]) => calls.map((c) => c.msg.messageId as string);

  it("flag: every call is stored and routed; the ones that break a rule carry their violations", async () => {
    await send(ingestA.url, [...good("flag-ok"), ...bad("flag-bad")]);
    const rows = await rowsById([...ids(good("flag-ok")), ...ids(bad("flag-bad"))]);
    const routed = await deliveriesByMessage(db, source.id);
    for (const id of ids(good("flag-ok"))) {
      expect(rows.get(id)).toMatchObject({ violations: null, blocked: false });
      expect(routed.get(id)).toEqual([destinationId]);
    }
    for (const id of ids(bad("flag-bad"))) {
      expect(rows.get(id)?.blocked).toBe(false);
      expect(rows.get(id)?.violations?.length).toBeGreaterThan(0);
      expect(routed.get(id)).toEqual([destinationId]);
    }
    expect(rows.get("flag-bad-t")?.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "/properties/total", rule: "type" }),
        expect.objectContaining({ path: "/properties/currency", rule: "enum" }),
      ]),
    );
    expect(rows.get("flag-bad-i")?.violations).toEqual([expect.objectContaining({ path: "/traits/email", rule: "format" })]);
    expect(rows.get("flag-bad-g")?.violations).toEqual([expect.objectContaining({ path: "/traits/plan", rule: "required" })]);
    expect(rows.get("flag-bad-p")?.violations).toEqual([expect.objectContaining({ path: "/properties/path", rule: "const" })]);
    expect(rows.get("flag-bad-s")?.violations).toEqual([expect.objectContaining({ path: "/properties/variant", rule: "type" })]);

    // The debugger shows each call's violations.
    const { events } = await api.get(`/api/sources/${source.id}/events?limit=50`);
    const shown = events.find((e: { messageId: string }) => e.messageId === "flag-bad-i");
    expect(shown).toMatchObject({ accepted: true, blocked: false, violations: [{ path: "/traits/email", rule: "format" }] });

    const m = await waitFor(
      async () => {
        const s = await scrape();
        return sumOf(s, "eventrail_tracking_violations_total", { source: source.id }) >= 6 ? s : null;
      },
      { timeoutMs: 30_000, what: "the violations on /metrics" },
    );
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id, event: "Order Completed", rule: "type" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id, event: "Order Completed", rule: "enum" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id, event: "identify", rule: "format" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id, event: "group", rule: "required" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id })).toBe(6);

    // The plan's violations view: per event and rule, over time.
    const view = await api.get(`/api/tracking-plans/${planId}/violations?hours=1`);
    expect(view.groups).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "Order Completed", rule: "type", calls: 1, blocked: 0 }),
        expect.objectContaining({ event: "identify", rule: "format", calls: 1, blocked: 0 }),
        expect.objectContaining({ event: "screen", rule: "type", calls: 1, blocked: 0 }),
      ]),
    );
    expect(view.groups.reduce((n: number, g: { calls: number }) => n + g.calls, 0)).toBe(6);
    expect(view.groups[0].byHour).toEqual([{ hour: expect.any(String), calls: expect.any(Number) }]);
  });

  it("previews a plan as typed against the source's recent calls, as ingest would judge them", async () => {
    // The source holds the 10 calls of the test above: 5 conform, 5 break a rule.
    const r = await api.post("/api/tracking-plans/preview", { rules, violations: "block", sourceIds: [source.id] });
    expect(r).toMatchObject({ considered: 10, conforming: 5, flagged: 0, blocked: 5 });
    expect(r.examples.map((e: { messageId: string }) => e.messageId).sort()).toEqual(ids(bad("flag-bad")).sort());
    const unplanned = await api.post("/api/tracking-plans/preview", { rules: rules.slice(1), unplanned: "flag", sourceIds: [source.id] });
    expect(unplanned.flagged).toBeGreaterThanOrEqual(2);
    const invalid = await api.request("POST", "/api/tracking-plans/preview", {
      rules: [{ type: "track", event: "x", schema: { type: 1 } }],
      sourceIds: [source.id],
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.fields["rules.0.schema"]).toBeDefined();
    expect((await other.request("POST", "/api/tracking-plans/preview", { rules, sourceIds: [source.id] })).status).toBe(422);
  });

  it("block: a plan change applies to the next call in both ingest processes; broken calls are answered 200, stored and not routed", async () => {
    // Both processes have the source (and the plan's first version) cached.
    await send(ingestB.url, good("warm-b"));
    expect((await api.patch(`/api/tracking-plans/${planId}`, { violations: "block" })).version).toBe(3);

    await send(ingestA.url, [...good("block-ok-a"), ...bad("block-bad-a")]);
    await send(ingestB.url, [...good("block-ok-b"), ...bad("block-bad-b")]);
    const all = [...ids(good("block-ok-a")), ...ids(bad("block-bad-a")), ...ids(good("block-ok-b")), ...ids(bad("block-bad-b"))];
    const rows = await rowsById(all);
    const routed = await deliveriesByMessage(db, source.id);
    expect(rows.size).toBe(all.length);
    for (const id of [...ids(good("block-ok-a")), ...ids(good("block-ok-b"))]) {
      expect(rows.get(id)).toMatchObject({ violations: null, blocked: false });
      expect(routed.get(id)).toEqual([destinationId]);
    }
    for (const id of [...ids(bad("block-bad-a")), ...ids(bad("block-bad-b"))]) {
      expect(rows.get(id)?.blocked).toBe(true);
      expect(rows.get(id)?.violations?.length).toBeGreaterThan(0);
      expect(routed.get(id)).toBeUndefined();
    }
    // A blocked single call is answered like any accepted one.
    const single = await postTracking(
      ingestA.url,
      "/v1/track",
      { messageId: "block-single", userId: "u1", event: "Order Completed", properties: {} },
      { writeKey: source.writeKey },
    );
    expect(single).toMatchObject({ status: 200, body: { success: true } });
    expect((await rowsById(["block-single"])).get("block-single")?.blocked).toBe(true);
    const { events } = await api.get(`/api/sources/${source.id}/events?limit=5`);
    expect(events.find((e: { messageId: string }) => e.messageId === "block-single")).toMatchObject({ blocked: true });
  });

  it("unplanned: allow passes a track event the plan does not name, flag records it, block keeps it from routing", async () => {
    const call = (id: string) => [{ kind: "track" as const, msg: { messageId: id, userId: "u1", event: "Order Complete" } }];
    await send(ingestA.url, call("unplanned-allow"));
    await api.patch(`/api/tracking-plans/${planId}`, { unplanned: "flag" });
    await send(ingestB.url, call("unplanned-flag"));
    await api.patch(`/api/tracking-plans/${planId}`, { unplanned: "block", violations: "flag" });
    await send(ingestA.url, call("unplanned-block"));
    await send(ingestB.url, bad("after-block"));

    const rows = await rowsById(["unplanned-allow", "unplanned-flag", "unplanned-block", ...ids(bad("after-block"))]);
    const routed = await deliveriesByMessage(db, source.id);
    expect(rows.get("unplanned-allow")).toMatchObject({ violations: null, blocked: false });
    expect(routed.get("unplanned-allow")).toEqual([destinationId]);
    expect(rows.get("unplanned-flag")).toMatchObject({ violations: [{ path: "/event", rule: "unplanned" }], blocked: false });
    expect(routed.get("unplanned-flag")).toEqual([destinationId]);
    expect(rows.get("unplanned-block")).toMatchObject({ violations: [{ path: "/event", rule: "unplanned" }], blocked: true });
    expect(routed.get("unplanned-block")).toBeUndefined();
    // violations are back to flag: broken planned calls route again
    for (const id of ids(bad("after-block"))) expect(routed.get(id)).toEqual([destinationId]);

    const m = await waitFor(
      async () => {
        const s = await scrape();
        return sumOf(s, "eventrail_tracking_violations_total", { source: source.id, rule: "unplanned" }) >= 2 ? s : null;
      },
      { timeoutMs: 30_000, what: "the unplanned violations on /metrics" },
    );
    expect(sumOf(m, "eventrail_tracking_violations_total", { source: source.id, event: "(unplanned)", rule: "unplanned" })).toBe(2);
    const view = await api.get(`/api/tracking-plans/${planId}/violations`);
    expect(view.groups.find((g: { rule: string }) => g.rule === "unplanned")).toMatchObject({
      event: "Order Complete",
      calls: 2,
      blocked: 1,
    });
  });

  it("a deleted plan checks nothing from the next call on", async () => {
    await api.del(`/api/tracking-plans/${planId}`);
    await send(ingestA.url, bad("no-plan-a"));
    await send(ingestB.url, bad("no-plan-b"));
    const rows = await rowsById([...ids(bad("no-plan-a")), ...ids(bad("no-plan-b"))]);
    for (const r of rows.values()) expect(r).toMatchObject({ violations: null, blocked: false });
  });
});

describe("exact integers", () => {
  it("checks an integer beyond 2^53 as the number it is", async () => {
    const s3 = await createSource(api, "Big ids");
    await api.post("/api/tracking-plans", {
      name: "Ids",
      violations: "block",
      sourceIds: [s3.id],
      rules: [{ type: "track", event: "Big", schema: { properties: { id: { type: "integer", minimum: 0 } }, required: ["id"] } }],
    });
    // Raw text: JSON.stringify could not write these digits.
    const body = `{"batch": [
      {"type": "track", "messageId": "big-ok", "userId": "u", "event": "Big", "properties": {"id": 12345678901234567890}},
      {"type": "track", "messageId": "big-bad", "userId": "u", "event": "Big", "properties": {"id": -12345678901234567890}}]}`;
    expect((await postTracking(ingestA.url, "/v1/batch", body, { writeKey: s3.writeKey })).status).toBe(200);
    const { rows } = await db.query<Row>("SELECT message_id, violations, blocked FROM messages WHERE source_id = $1 ORDER BY message_id", [
      s3.id,
    ]);
    expect(rows.map((r) => [r.message_id, r.blocked, r.violations?.map((v) => v.rule) ?? null])).toEqual([
      ["big-bad", true, ["minimum"]],
      ["big-ok", false, null],
    ]);
  });
});

describe("Segment format", () => {
  const segmentPlan = {
    tracking_plan: {
      display_name: "Imported",
      rules: {
        events: [
          {
            name: "Signed Up",
            version: 1,
            rules: {
              $schema: "http://json-schema.org/draft-07/schema#",
              type: "object",
              properties: { properties: { type: "object", properties: { plan: { type: ["string"] } }, required: ["plan"] } },
              required: ["properties"],
            },
          },
        ],
        identify: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { traits: { type: "object", properties: { age: { type: "integer" } } } },
        },
        group: {},
      },
    },
  };

  it("imports a plan in Segment's shape, checks calls by it, and exports it back", async () => {
    const s2 = await createSource(api, "Imported source");
    const plan = await api.post("/api/tracking-plans/import", { plan: segmentPlan, sourceIds: [s2.id], violations: "block" });
    expect(plan).toMatchObject({ name: "Imported", version: 1, violations: "block", sourceIds: [s2.id] });
    expect(plan.rules.map((r: { type: string; event: string | null }) => [r.type, r.event])).toEqual([
      ["track", "Signed Up"],
      ["identify", null],
    ]);
    const batch = [
      { type: "track", messageId: "seg-ok", userId: "u", event: "Signed Up", properties: { plan: "pro" } },
      { type: "track", messageId: "seg-bad", userId: "u", event: "Signed Up", properties: { plan: 3 } },
      { type: "identify", messageId: "seg-id-bad", userId: "u", traits: { age: 1.5 } },
    ];
    expect((await postTracking(ingestA.url, "/v1/batch", { batch }, { writeKey: s2.writeKey })).status).toBe(200);
    const { rows } = await db.query<Row>("SELECT message_id, violations, blocked FROM messages WHERE source_id = $1 ORDER BY message_id", [
      s2.id,
    ]);
    expect(rows.map((r) => [r.message_id, r.blocked, r.violations?.map((v) => v.rule) ?? null])).toEqual([
      ["seg-bad", true, ["type"]],
      ["seg-id-bad", true, ["type"]],
      ["seg-ok", false, null],
    ]);

    const exported = await api.get(`/api/tracking-plans/${plan.id}/export`);
    expect(exported.display_name).toBe("Imported");
    expect(exported.rules.events[0]).toMatchObject({ name: "Signed Up", rules: segmentPlan.tracking_plan.rules.events[0].rules });
    const again = await api.post("/api/tracking-plans/import", { plan: exported, name: "Round trip" });
    expect(again.rules).toEqual(plan.rules);

    const empty = await api.request("POST", "/api/tracking-plans/import", {
      plan: { tracking_plan: { rules: { global: { type: "object" } } } },
    });
    expect(empty.status).toBe(422);
  });
});
