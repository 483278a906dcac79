// Data for audience tests that run lib functions in-process against a test database of their
// own: workspaces, sources and destinations as rows, and calls stored the way ingest stores
// them (a messages row with the Segment-shaped payload, and updateProfiles in the same
// transaction).

import { randomUUID } from "node:crypto";
import { pool, withTransaction } from "../../lib/platform/db";
import { closeRuntime } from "../../lib/platform/runtime";
import { updateProfiles } from "../../lib/audiences/profiles";
import { createTestDatabase } from "./pg";

/** A fresh migrated database that this process's pool() and boss() use. */
export async function useTestDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  process.env.LOG_LEVEL ??= "warn";
  return {
    url: db.url,
    async close() {
      await closeRuntime();
      await db.drop();
    },
  };
}

export async function insertWorkspace(): Promise<{ workspaceId: string; sourceId: string }> {
  const workspaceId = randomUUID();
  const sourceId = randomUUID();
  await pool().query(`INSERT INTO workspaces (id, name) VALUES ($1, 'test')`, [workspaceId]);
  await pool().query(`INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES ($1, $2, 'src', $3, now())`, [
    sourceId,
    workspaceId,
    randomUUID().replace(/-/g, ""),
  ]);
  return { workspaceId, sourceId };
}

export async function insertSource(workspaceId: string): Promise<string> {
  const id = randomUUID();
  await pool().query(`INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES ($1, $2, 'src', $3, now())`, [
    id,
    workspaceId,
    randomUUID().replace(/-/g, ""),
  ]);
  return id;
}

export async function insertDestination(workspaceId: string, opts: { url?: string; enabled?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  await pool().query(
    `INSERT INTO destinations (id, workspace_id, name, urls, enabled, updated_at) VALUES ($1, $2, 'hook', $3, $4, now())`,
    [id, workspaceId, [opts.url ?? "http://127.0.0.1:9/hook"], opts.enabled ?? true],
  );
  return id;
}

export type Call = {
  type: "identify" | "track" | "alias" | "page";
  userId?: string;
  anonymousId?: string;
  previousId?: string;
  event?: string;
  traits?: Record<string, unknown>;
  properties?: Record<string, unknown>;
  /** days ago (default 0) */
  daysAgo?: number;
};

/** Stores calls as ingest does: messages rows and the profile hook, in one transaction. */
export async function storeCalls(workspaceId: string, sourceId: string, calls: Call[]): Promise<void> {
  const now = Date.now();
  const rows = calls.map((c) => {
    const timestamp = new Date(now - (c.daysAgo ?? 0) * 86_400_000).toISOString();
    const messageId = randomUUID();
    const payload = {
      type: c.type,
      messageId,
      timestamp,
      receivedAt: new Date(now).toISOString(),
      context: {},
      ...(c.userId ? { userId: c.userId } : {}),
      ...(c.anonymousId ? { anonymousId: c.anonymousId } : {}),
      ...(c.previousId ? { previousId: c.previousId } : {}),
      ...(c.event ? { event: c.event, properties: c.properties ?? {} } : {}),
      ...(c.traits ? { traits: c.traits } : {}),
    };
    return { c, timestamp, messageId, payload };
  });
  await withTransaction(async (client) => {
    await client.query(
      `INSERT INTO messages (id, workspace_id, source_id, message_id, type, user_id, anonymous_id, event, timestamp, received_at, payload)
       SELECT gen_random_uuid(), $1, $2, mid, t, u, a, e, ts, now(), p
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::jsonb[]) AS x(mid, t, u, a, e, ts, p)`,
      [
        workspaceId,
        sourceId,
        rows.map((r) => r.messageId),
        rows.map((r) => r.c.type),
        rows.map((r) => r.c.userId ?? null),
        rows.map((r) => r.c.anonymousId ?? null),
        rows.map((r) => r.c.event ?? null),
        rows.map((r) => r.timestamp),
        rows.map((r) => JSON.stringify(r.payload)),
      ],
    );
    await updateProfiles(client, {
      workspaceId,
      messages: rows.map((r) => ({
        type: r.c.type,
        userId: r.c.userId ?? null,
        anonymousId: r.c.anonymousId ?? null,
        previousId: r.c.previousId ?? null,
        traits: r.c.traits ?? null,
        timestamp: r.timestamp,
      })),
    });
  });
}

export const identify = (userId: string, traits: Record<string, unknown>, extra: Partial<Call> = {}): Call => ({
  type: "identify",
  userId,
  traits,
  ...extra,
});
export const track = (
  userId: string | undefined,
  event: string,
  properties: Record<string, unknown> = {},
  extra: Partial<Call> = {},
): Call => ({
  type: "track",
  userId,
  event,
  properties,
  ...extra,
});
