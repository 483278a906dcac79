/** Helpers for the Tracking API's integration tests: real HTTP, real rows read back with SQL. */
import pg from "pg";
import type { ApiClient } from "./stack";

export type Db = pg.Pool;

export function openDb(url: string): Db {
  const db = new pg.Pool({ connectionString: url, max: 3 });
  // A database stopped or dropped under a test must not crash the test process.
  db.on("error", () => {});
  return db;
}

export type TestSource = { id: string; writeKey: string; workspaceId: string };

export async function createSource(api: ApiClient, name = "Backend"): Promise<TestSource> {
  const s = await api.post<{ id: string; writeKey: string }>("/api/sources", { name });
  return { id: s.id, writeKey: s.writeKey, workspaceId: api.workspaceId! };
}

/** A Webhooks destination row, inserted directly (the destinations API is built elsewhere). */
export async function createDestination(
  db: Db,
  opts: { workspaceId: string; name: string; enabled?: boolean; sourceIds?: string[] },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO destinations (id, workspace_id, name, urls, enabled, updated_at)
     VALUES (gen_random_uuid(), $1, $2, ARRAY['http://127.0.0.1:9/hook'], $3, now()) RETURNING id`,
    [opts.workspaceId, opts.name, opts.enabled ?? true],
  );
  for (const sourceId of opts.sourceIds ?? []) {
    await db.query("INSERT INTO destination_sources (destination_id, source_id) VALUES ($1, $2)", [rows[0].id, sourceId]);
  }
  return rows[0].id;
}

export const basic = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;

export type TrackingResponse = { status: number; body: any; headers: Headers };

/** POSTs to the Tracking API; `body` is sent as is when it is a string or bytes. */
export async function postTracking(
  baseUrl: string,
  path: string,
  body: unknown,
  opts: { writeKey?: string; headers?: Record<string, string> } = {},
): Promise<TrackingResponse> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(opts.writeKey ? { authorization: basic(opts.writeKey) } : {}),
    ...opts.headers,
  };
  const payload = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(baseUrl + path, { method: "POST", headers, body: payload as BodyInit });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

export type StoredMessage = {
  id: string;
  message_id: string;
  type: string;
  user_id: string | null;
  anonymous_id: string | null;
  event: string | null;
  timestamp: Date;
  original_timestamp: Date | null;
  sent_at: Date | null;
  received_at: Date;
  origin: string;
  workspace_id: string;
  payload: any;
};

export async function storedMessages(db: Db, sourceId: string): Promise<StoredMessage[]> {
  const { rows } = await db.query<StoredMessage>("SELECT * FROM messages WHERE source_id = $1 ORDER BY received_at, message_id", [
    sourceId,
  ]);
  return rows;
}

/** message_id → destination ids of its deliveries. */
export async function deliveriesByMessage(db: Db, sourceId: string): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ message_id: string; destination_id: string }>(
    `SELECT m.message_id, d.destination_id FROM deliveries d JOIN messages m ON m.id = d.message_row_id
      WHERE m.source_id = $1 ORDER BY d.destination_id`,
    [sourceId],
  );
  const map = new Map<string, string[]>();
  for (const r of rows) map.set(r.message_id, [...(map.get(r.message_id) ?? []), r.destination_id]);
  return map;
}

/** Every delivery id carried by a `deliver` job (pg-boss), to prove jobs exist for the deliveries. */
export async function deliveryIdsInJobs(db: Db): Promise<Set<string>> {
  const { rows } = await db.query<{ data: { deliveryIds: string[] } }>("SELECT data FROM pgboss.job WHERE name = 'deliver'");
  return new Set(rows.flatMap((r) => r.data.deliveryIds));
}
