/**
 * The client library through the real Tracking API (`next start` on a fresh database): every call
 * arrives, once, as sent.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ApiClient, type Stack } from "./harness/stack";
import { Analytics } from "../lib/sdk/analytics";
import type { FailureEvent } from "../lib/sdk/types";
import { TS_NODE_ARGS } from "../scripts/lib/runtime";

let stack: Stack;
let workspace: ApiClient;
let pool: pg.Pool;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  workspace = await stack.newWorkspace("client library");
  pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

type Expected = {
  type: string;
  userId?: string;
  anonymousId?: string;
  event?: string;
  fields: Record<string, unknown>;
  historical?: string;
};

/** Call i of a deterministic mix of all six types, some anonymous, some historical, some with integrations. */
function call(analytics: Analytics, i: number): [string, Expected] {
  const who = i % 4 === 0 ? { anonymousId: `anon-${i}` } : { userId: `user-${i % 500}` };
  const historical = i % 10 === 0 ? new Date(Date.UTC(2020, 0, 1) + i * 1000).toISOString() : undefined;
  const common = {
    ...who,
    ...(historical ? { timestamp: historical } : {}),
    ...(i % 7 === 0 ? { integrations: { All: false, Webhooks: true } } : {}),
  };
  switch (i % 6) {
    case 0: {
      const traits = { email: `p${i}@example.com`, name: `Zoë ${i}` };
      return [analytics.identify({ ...common, traits }), { type: "identify", ...who, fields: { traits }, historical }];
    }
    case 1: {
      const properties = { orderId: `o-${i}`, total: i / 100, items: [i, "ü"], nested: { ok: true } };
      return [
        analytics.track({ ...common, event: "Order Completed", properties }),
        { type: "track", ...who, event: "Order Completed", fields: { properties }, historical },
      ];
    }
    case 2: {
      const properties = { path: `/p/${i}`, title: "Pricing" };
      return [
        analytics.page({ ...common, name: "Pricing", category: "Docs", properties }),
        { type: "page", ...who, fields: { name: "Pricing", category: "Docs", properties }, historical },
      ];
    }
    case 3:
      return [
        analytics.screen({ ...common, name: `Screen ${i}` }),
        { type: "screen", ...who, fields: { name: `Screen ${i}` }, historical },
      ];
    case 4: {
      const traits = { name: `Acme ${i % 30}` };
      return [
        analytics.group({ ...common, groupId: `g-${i % 30}`, traits }),
        { type: "group", ...who, fields: { groupId: `g-${i % 30}`, traits }, historical },
      ];
    }
    default:
      return [
        analytics.alias({ userId: `user-${i}`, previousId: `anon-${i}`, ...(historical ? { timestamp: historical } : {}) }),
        { type: "alias", userId: `user-${i}`, fields: { previousId: `anon-${i}` }, historical },
      ];
  }
}

describe("client library → Tracking API", () => {
  it("10,000 calls of mixed types arrive complete and correct", async () => {
    const source = await workspace.post<{ id: string; writeKey: string }>("/api/sources", { name: "Backend" });
    const analytics = new Analytics(source.writeKey, { endpoint: stack.app.url });
    const failures: FailureEvent[] = [];
    analytics.on("failure", (e) => failures.push(e));
    const expected = new Map<string, Expected>();
    for (let i = 0; i < 10_000; i++) {
      const [messageId, e] = call(analytics, i);
      expected.set(messageId, e);
      // Let batches go out while calls keep coming, as in a server.
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    const result = await analytics.close();
    expect(failures.map((f) => f.error.message)).toEqual([]);
    expect(result.failed).toBe(0);

    const { rows } = await pool.query(
      `SELECT message_id, type, user_id, anonymous_id, event, timestamp, original_timestamp, payload
         FROM messages WHERE source_id = $1`,
      [source.id],
    );
    expect(rows).toHaveLength(10_000);
    const wrong: string[] = [];
    for (const row of rows) {
      const e = expected.get(row.message_id);
      if (!e) {
        wrong.push(`unexpected messageId ${row.message_id}`);
        continue;
      }
      expect({
        type: row.type,
        userId: row.user_id ?? undefined,
        anonymousId: row.anonymous_id ?? undefined,
        event: row.event ?? undefined,
      }).toEqual({
        type: e.type,
        userId: e.userId,
        anonymousId: e.anonymousId,
        event: e.event,
      });
      expect(row.payload).toMatchObject({ ...e.fields, messageId: row.message_id, context: { library: { name: "eventrail-analytics" } } });
      if (e.historical) {
        // Historical import keeps its past time; sentAt-based skew correction moves it by milliseconds at most.
        expect(new Date(row.original_timestamp).toISOString()).toBe(e.historical);
        expect(Math.abs(new Date(row.timestamp).getTime() - Date.parse(e.historical))).toBeLessThan(60_000);
      }
      expected.delete(row.message_id);
    }
    expect(wrong).toEqual([]);
    expect(expected.size).toBe(0);
  });

  it("a wrong write key fails once with 401 and is not retried", async () => {
    const analytics = new Analytics("not-a-write-key-0000000000000000", { endpoint: stack.app.url, maxRetries: 3 });
    const failures: FailureEvent[] = [];
    analytics.on("failure", (e) => failures.push(e));
    analytics.track({ userId: "u", event: "E" });
    expect(await analytics.close()).toEqual({ sent: 0, failed: 1 });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ code: "http_error", status: 401, attempts: 1 });
  });

  it("npm run send delivers calls to a running instance and reports usage errors", async () => {
    const source = await workspace.post<{ id: string; writeKey: string }>("/api/sources", { name: "CLI" });
    const send = (...args: string[]) =>
      promisify(execFile)(process.execPath, [...TS_NODE_ARGS, path.join(import.meta.dirname, "../scripts/send.ts"), ...args], {
        env: { ...process.env, DEBUG: "" },
      }).then(
        (r) => ({ code: 0, ...r }),
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
    const ok = await send(
      "track",
      "--user",
      "cli-user",
      "--event",
      "CLI Event",
      "--props",
      '{"plan":"pro"}',
      "--write-key",
      source.writeKey,
      "--endpoint",
      stack.app.url,
      "-n",
      "3",
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`track × 3 to ${stack.app.url}: 3 acknowledged, 0 failed`);
    const { rows } = await pool.query("SELECT user_id, event, payload FROM messages WHERE source_id = $1", [source.id]);
    expect(rows).toHaveLength(3);
    for (const row of rows)
      expect(row).toMatchObject({ user_id: "cli-user", event: "CLI Event", payload: { properties: { plan: "pro" } } });

    const bad = await send("track", "--user", "cli-user", "--write-key", source.writeKey, "--endpoint", stack.app.url);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error: track: event is required");
  });
});
