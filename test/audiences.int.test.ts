// The audience rules end to end: profiles fed through the Tracking API (/v1/batch), syncs run by
// real workers (two of them), identifies delivered by the delivery engine to real receivers on
// 127.0.0.1 — first sync, churn, no change, a failing receiver, and the pg-boss schedule.

import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";

type Received = { body: Record<string, any>; status: number };

/** An HTTP receiver that records every body; `failFirst` answers 500 to each message's first N tries. */
async function receiver(opts: { failFirst?: number } = {}) {
  const received: Received[] = [];
  const tries = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const body = JSON.parse(data);
      const n = (tries.get(body.messageId) ?? 0) + 1;
      tries.set(body.messageId, n);
      const status = n <= (opts.failFirst ?? 0) ? 500 : 200;
      received.push({ body, status });
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** Identifies that were answered 200, as "userId=value" for `property`. */
    delivered: (property: string) =>
      received
        .filter((r) => r.status === 200 && r.body.type === "identify")
        .map((r) => `${r.body.userId}=${r.body.traits[property]}`)
        .sort(),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let stack: Stack;
let api: ApiClient;
let db: pg.Pool;
let writeKey: string;
let sourceId: string;

async function batch(calls: Record<string, unknown>[]) {
  const res = await fetch(`${stack.app.url}/v1/batch`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ batch: calls }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ success: true });
}

const identify = (userId: string, traits: Record<string, unknown>, anonymousId?: string) => ({
  type: "identify",
  userId,
  traits,
  ...(anonymousId ? { anonymousId } : {}),
});
const track = (who: { userId?: string; anonymousId?: string }, event: string, properties: Record<string, unknown> = {}) => ({
  type: "track",
  ...who,
  event,
  properties,
});

async function syncDone(audienceId: string, syncId: string) {
  return waitFor(
    async () => {
      const { syncs } = await api.get(`/api/audiences/${audienceId}/syncs`);
      const s = syncs.find((x: { id: string }) => x.id === syncId);
      return s && s.status !== "queued" && s.status !== "running" && s;
    },
    { timeoutMs: 60_000, what: `sync ${syncId}` },
  );
}

/** Every delivery of the sync's identifies ended delivered: nothing else is on its way. */
async function allDelivered(syncId: string) {
  return waitFor(
    async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE d.state = 'delivered')::int AS done
         FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.origin = 'audience' AND m.origin_ref = $1`,
        [syncId],
      );
      return rows[0].n === rows[0].done && rows[0];
    },
    { timeoutMs: 60_000, what: `deliveries of sync ${syncId}` },
  );
}

beforeAll(async () => {
  // Retries start within 200 ms here instead of seconds: the failing-receiver test waits for them.
  stack = await startStack({ workers: 2, env: { EVENTRAIL_RETRY_BASE_MS: "200", EVENTRAIL_RETRY_MAX_MS: "1000" } });
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  api = await stack.newWorkspace("audiences");
  ({ id: sourceId, writeKey } = await api.post("/api/sources", { name: "App" }));
  await batch([
    identify("u1", { plan: "pro", email: "u1@example.com" }),
    identify("u2", { plan: "pro" }),
    identify("u3", { plan: "free" }),
    identify("u4", { plan: "free" }),
    identify("u5", { plan: "free" }, "anon-5"),
    // u3 ordered twice; u5 once before logging in (anonymous) and once after.
    track({ userId: "u3" }, "Order Completed", { total: 120 }),
    track({ userId: "u3" }, "Order Completed", { total: 80 }),
    track({ anonymousId: "anon-5" }, "Order Completed", { total: 50 }),
    track({ userId: "u5" }, "Order Completed", { total: 60 }),
    track({ userId: "u4" }, "Order Completed", { total: 999 }),
  ]);
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const condition = {
  any: [
    { trait: "plan", op: "equals", value: "pro" },
    { event: "Order Completed", atLeast: 2, withinDays: 30 },
  ],
};

describe("audiences end to end", () => {
  it("first sync sends one identify per member with true; churn sends exactly entered/exited; no change sends nothing", async () => {
    const rx = await receiver();
    try {
      // Not connected to the source: this destination only hears from the audience.
      const dest = await api.post("/api/destinations", { name: "CRM", urls: [rx.url], sourceIds: [] });
      const audience = await api.post("/api/audiences", {
        name: "Valued Customers",
        sourceIds: [sourceId],
        destinationIds: [dest.id],
        condition,
      });
      expect(audience.propertyName).toBe("valued_customers");

      const first = await syncDone(audience.id, audience.lastSync.id);
      expect(first).toMatchObject({ status: "completed", initial: true, entered: 4, exited: 0, sent: 4, size: 4 });
      await allDelivered(first.id);
      expect(rx.delivered("valued_customers")).toEqual(["u1=true", "u2=true", "u3=true", "u5=true"]);
      const one = rx.received[0].body;
      expect(one).toMatchObject({ version: 1, type: "identify", traits: { valued_customers: true } });
      expect(Object.keys(one.traits)).toEqual(["valued_customers"]);

      // u1 downgrades and leaves; u4 upgrades and enters; u2 changes an unrelated trait.
      await batch([identify("u1", { plan: "free" }), identify("u4", { plan: "pro" }), identify("u2", { country: "DE" })]);
      const requested = await api.post(`/api/audiences/${audience.id}/sync`);
      const second = await syncDone(audience.id, requested.sync.id);
      expect(second).toMatchObject({ status: "completed", initial: false, entered: 1, exited: 1, sent: 2, size: 4 });
      await allDelivered(second.id);
      expect(rx.delivered("valued_customers")).toEqual(["u1=false", "u1=true", "u2=true", "u3=true", "u4=true", "u5=true"]);

      const third = await syncDone(audience.id, (await api.post(`/api/audiences/${audience.id}/sync`)).sync.id);
      expect(third).toMatchObject({ status: "completed", entered: 0, exited: 0, sent: 0, size: 4 });
      expect((await allDelivered(third.id)).n).toBe(0);
      expect(rx.received).toHaveLength(6);

      const { members } = await api.get(`/api/audiences/${audience.id}/members`);
      expect(members.map((m: { userId: string }) => m.userId)).toEqual(["u2", "u3", "u4", "u5"]);
    } finally {
      await rx.close();
    }
  });

  it("a failing receiver gets retries like any delivery, logged attempt by attempt", async () => {
    const rx = await receiver({ failFirst: 2 });
    try {
      const dest = await api.post("/api/destinations", { name: "Flaky", urls: [rx.url], sourceIds: [] });
      const audience = await api.post("/api/audiences", {
        name: "Pro plan",
        sourceIds: [sourceId],
        destinationIds: [dest.id],
        condition: { trait: "plan", op: "equals", value: "pro" },
      });
      const sync = await syncDone(audience.id, audience.lastSync.id);
      expect(sync).toMatchObject({ status: "completed", entered: 2, sent: 2 });
      await allDelivered(sync.id);
      expect(rx.delivered("pro_plan")).toEqual(["u2=true", "u4=true"]);
      expect(rx.received.filter((r) => r.status === 500)).toHaveLength(4);
      const { rows } = await db.query(
        `SELECT a.outcome, a.response_status FROM attempts a JOIN messages m ON m.id = a.message_row_id WHERE m.origin_ref = $1 ORDER BY a.id`,
        [sync.id],
      );
      expect(rows.filter((r) => r.outcome === "retry" && r.response_status === 500)).toHaveLength(4);
      expect(rows.filter((r) => r.outcome === "success")).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });

  it("the pg-boss schedule syncs a due audience once, with two workers running", { timeout: 180_000 }, async () => {
    const rx = await receiver();
    try {
      const dest = await api.post("/api/destinations", { name: "Scheduled", urls: [rx.url], sourceIds: [] });
      const audience = await api.post("/api/audiences", {
        name: "Scheduled buyers",
        sourceIds: [sourceId],
        destinationIds: [dest.id],
        condition: { event: "Order Completed", atLeast: 1, withinDays: 7, where: [{ property: "total", op: "gte", value: 100 }] },
        scheduleMinutes: 5,
      });
      const first = await syncDone(audience.id, audience.lastSync.id);
      expect(first).toMatchObject({ entered: 2 }); // u3 (120) and u4 (999)
      await batch([track({ userId: "u1" }, "Order Completed", { total: 150 })]);
      // Pretend the last sync was 6 minutes ago: the next tick (every minute) finds it due.
      await db.query(`UPDATE audience_syncs SET started_at = now() - interval '6 minutes' WHERE audience_id = $1`, [audience.id]);
      const scheduled = await waitFor(
        async () => {
          const { syncs } = await api.get(`/api/audiences/${audience.id}/syncs`);
          return syncs.find((s: { trigger: string; status: string }) => s.trigger === "schedule" && s.status === "completed");
        },
        { timeoutMs: 150_000, intervalMs: 1_000, what: "a scheduled sync" },
      );
      expect(scheduled).toMatchObject({ entered: 1, exited: 0, sent: 1 });
      await allDelivered(scheduled.id);
      expect(rx.delivered("scheduled_buyers")).toEqual(["u1=true", "u3=true", "u4=true"]);
      const { syncs } = await api.get(`/api/audiences/${audience.id}/syncs`);
      expect(syncs.filter((s: { trigger: string }) => s.trigger === "schedule")).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});
