// New kinds of tracking-plan violation told through the workspace's alert channels
// (docs/tracking-plans.md#notices): calls sent through the real Tracking API break a plan; the tick's
// pass (run here at once, without its lag) tells each kind once, by a Slack-compatible POST to a real
// receiver and by real SMTP, and a kind seen again is not told again.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noticeNewViolationKinds } from "../lib/tracking-plans/violation-notices";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { withClient } from "./harness/delivery/direct";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { startSmtpServer, type SmtpHarness } from "./harness/smtp";
import { postTracking } from "./harness/tracking";

let ctx: DeliveryContext;
let smtp: SmtpHarness;
let hooks: Receiver;
const adminEmail = `admin-${crypto.randomUUID().slice(0, 8)}@example.com`;

beforeAll(async () => {
  // The notification URL is a receiver on 127.0.0.1, which the SSRF guard allows only here.
  process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
  ctx = await startDeliveryContext();
  smtp = await startSmtpServer();
  hooks = await startReceiver(() => ({ status: 200, body: "ok" }));
  await withClient(ctx.stack.databaseUrl, async (c) => {
    const user = await c.query(`INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), $1, 'x') RETURNING id`, [
      adminEmail,
    ]);
    await c.query(`INSERT INTO memberships (user_id, workspace_id, role) VALUES ($1, $2, 'admin')`, [user.rows[0].id, ctx.api.workspaceId]);
  });
  await ctx.api.request("PUT", "/api/alerts/settings", { notifyUrl: `${hooks.url}/services/T0/B0/plan-token` });
});
afterAll(async () => {
  await hooks?.close();
  await smtp?.close();
  await ctx?.close();
});

const rules = [
  {
    type: "track",
    event: "Order Completed",
    schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
  },
];

describe("new kinds of violation (docs/tracking-plans.md#notices)", () => {
  it("tells each new kind once, through the notification URL and email, and a later new kind again", async () => {
    const source = await ctx.api.post<{ id: string; writeKey: string }>("/api/sources", { name: "Shop" });
    const plan = await ctx.api.post<{ id: string }>("/api/tracking-plans", {
      name: "Shop plan",
      rules,
      unplanned: "flag",
      sourceIds: [source.id],
    });
    const send = async (calls: object[]) => {
      const res = await postTracking(ctx.stack.app.url, "/v1/batch", { batch: calls }, { writeKey: source.writeKey });
      expect(res.status).toBe(200);
    };
    // Each call is committed before its 200, so a pass after it may read up to now.
    const pass = () => noticeNewViolationKinds({ lagMs: 0, workspaceId: ctx.api.workspaceId, smtpUrl: smtp.url });

    // Nothing broken yet: nothing told.
    await send([{ type: "track", userId: "u1", event: "Order Completed", properties: { total: 3 } }]);
    expect(await pass()).toEqual([]);

    await send([
      { type: "track", userId: "u1", event: "Order Completed", properties: { total: "3" } },
      { type: "track", userId: "u2", event: "Order Completed", properties: { total: "4" } },
      { type: "track", userId: "u1", event: "Order Completed", properties: {} },
      { type: "track", userId: "u1", event: "Cart Viewed" },
    ]);
    const first = await pass();
    expect(first.map((f) => [f.planId, f.kinds])).toEqual([
      [
        plan.id,
        expect.arrayContaining([
          { event: "Order Completed", rule: "type", path: "/properties/total" },
          { event: "Order Completed", rule: "required", path: "/properties/total" },
          { event: "Cart Viewed", rule: "unplanned", path: "/event" },
        ]),
      ],
    ]);
    expect(first[0].kinds).toHaveLength(3);
    const texts = () => hooks.requests.map((r) => JSON.parse(r.body).text as string);
    expect(texts()).toHaveLength(1);
    expect(texts()[0]).toMatch(/^Eventrail: tracking plan "Shop plan" saw 3 new kinds of violation:\n/);
    expect(texts()[0]).toContain("- Order Completed: /properties/total breaks `type`");
    expect(texts()[0]).toContain("- Cart Viewed: not in the plan");
    expect(hooks.requests[0].path).toBe("/services/T0/B0/plan-token");
    expect(smtp.messages.map((m) => [m.to, m.subject])).toEqual([[[adminEmail], "[Eventrail] New tracking plan violations: Shop plan"]]);

    // The same kinds again: nothing more. Another pass over the same calls: nothing more.
    await send([{ type: "track", userId: "u3", event: "Order Completed", properties: { total: "5" } }]);
    expect(await pass()).toEqual([]);
    expect(hooks.requests).toHaveLength(1);

    // A kind never seen before is told, alone.
    await send([{ type: "track", userId: "u4", event: "Checkout Started" }]);
    const later = await pass();
    expect(later.map((f) => f.kinds)).toEqual([[{ event: "Checkout Started", rule: "unplanned", path: "/event" }]]);
    expect(texts()[1]).toMatch(/saw a new kind of violation:\n- Checkout Started: not in the plan\n/);
    // The link to the plan's page ends it.
    expect(texts()[1]).toMatch(new RegExp(`\\n\\S+/tracking-plans/${plan.id}$`));
    expect(smtp.messages).toHaveLength(2);
  });
});
