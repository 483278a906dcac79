/**
 * Direct inserts for deletion tests: data as ingest, the delivery engine and audiences store it,
 * so erasure can be checked row by row. Plain SQL on a client of the test database.
 */
import crypto from "node:crypto";
import type pg from "pg";

type Q = Pick<pg.Pool, "query">;
const one = async (db: Q, sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;

export const seed = (db: Q) => ({
  workspace: (name = "ws") => one(db, "INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), $1) RETURNING id", [name]),

  source: (workspaceId: string, name: string) =>
    one(
      db,
      "INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, now()) RETURNING id",
      [workspaceId, name, crypto.randomBytes(16).toString("hex")],
    ),

  async destination(workspaceId: string, o: { name: string; sourceIds: string[]; enabled?: boolean; urls?: string[] }) {
    const id = await one(
      db,
      "INSERT INTO destinations (id, workspace_id, name, urls, enabled, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, now()) RETURNING id",
      [workspaceId, o.name, o.urls ?? ["http://127.0.0.1:9/hook"], o.enabled ?? true],
    );
    for (const s of o.sourceIds) await db.query("INSERT INTO destination_sources (destination_id, source_id) VALUES ($1, $2)", [id, s]);
    return id;
  },

  message(
    workspaceId: string,
    o: {
      sourceId: string | null;
      userId?: string | null;
      anonymousId?: string | null;
      type?: string;
      event?: string;
      origin?: string;
      properties?: Record<string, unknown>;
    },
  ) {
    const messageId = crypto.randomUUID();
    const type = o.type ?? "track";
    const payload = {
      type,
      messageId,
      userId: o.userId ?? undefined,
      anonymousId: o.anonymousId ?? undefined,
      event: o.event,
      properties: o.properties ?? { secret: "pii" },
    };
    return one(
      db,
      `INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event, timestamp, payload)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, now(), $9) RETURNING id`,
      [
        workspaceId,
        o.sourceId,
        o.origin ?? "api",
        messageId,
        type,
        o.userId ?? null,
        o.anonymousId ?? null,
        o.event ?? null,
        JSON.stringify(payload),
      ],
    );
  },

  delivery: (workspaceId: string, messageRowId: string, destinationId: string, state = "delivered") =>
    one(
      db,
      "INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state) VALUES (gen_random_uuid(), $1, $2, $3, $4) RETURNING id",
      [workspaceId, messageRowId, destinationId, state],
    ),

  async attempt(
    workspaceId: string,
    o: { deliveryId: string; destinationId: string; messageRowId: string; userId: string | null; type?: string },
  ) {
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, response_status, response_body, outcome)
       VALUES ($1, $2, $3, $4, 'm', $5, $6, 'http://127.0.0.1:9/hook', 1, now(), 12, '{}', '{"secret":"pii"}', 200, 'echo pii', 'success')
       RETURNING id`,
      [workspaceId, o.deliveryId, o.destinationId, o.messageRowId, o.type ?? "track", o.userId],
    );
    return rows[0].id;
  },

  async profile(workspaceId: string, userId: string, anonymousIds: string[] = []) {
    await db.query(
      'INSERT INTO profiles (id, workspace_id, user_id, anonymous_ids, traits) VALUES (gen_random_uuid(), $1, $2, $3, \'{"email":"x@y.z"}\')',
      [workspaceId, userId, anonymousIds],
    );
  },

  identityLink: (workspaceId: string, anonymousId: string, userId: string) =>
    db.query("INSERT INTO identity_links (workspace_id, anonymous_id, user_id) VALUES ($1, $2, $3)", [workspaceId, anonymousId, userId]),

  async audienceMembers(workspaceId: string, name: string, userIds: string[]) {
    const id = await one(
      db,
      "INSERT INTO audiences (id, workspace_id, name, property_name, condition, updated_at) VALUES (gen_random_uuid(), $1, $2, $2, '{}', now()) RETURNING id",
      [workspaceId, name],
    );
    for (const u of userIds) await db.query("INSERT INTO audience_members (audience_id, user_id) VALUES ($1, $2)", [id, u]);
    return id;
  },

  sourceCall: (sourceId: string, payload: object) =>
    db.query("INSERT INTO source_calls (source_id, accepted, type, payload) VALUES ($1, true, 'track', $2)", [
      sourceId,
      JSON.stringify(payload),
    ]),
});

export async function count(db: Q, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return rows[0].n;
}
