/**
 * Inserts messages the way ingest does — a messages row with the normalised Segment-shaped payload
 * and its deliveries + deliver jobs (createDeliveries) in ONE transaction — for tests that need
 * deliveries without going through the Tracking API. Row ids are UUIDv7 as ingest makes them
 * (docs/architecture.md#row-ids), so the benches that seed with it index what production indexes.
 */
import crypto from "node:crypto";
import pg from "pg";
import { createDeliveries } from "../../../lib/delivery/enqueue";
import { stringifyExact } from "../../../lib/platform/exact-json";
import { newRowId } from "../../../lib/tracking/row-ids";

export type SeedMessage = Record<string, unknown> & { type: string };

export async function seedMessages(
  databaseUrl: string,
  opts: { workspaceId: string; sourceId?: string | null; destinationIds: string[]; messages: SeedMessage[] },
): Promise<{ rowIds: string[]; messageIds: string[]; deliveryIds: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN");
    const now = new Date();
    const rows = opts.messages.map((m) => {
      const messageId = (m.messageId as string) ?? crypto.randomUUID();
      const timestamp = new Date((m.timestamp as string) ?? now).toISOString();
      const payload = { ...m, messageId, timestamp, receivedAt: now.toISOString() };
      return { messageId, timestamp, payload, m };
    });
    const { rows: inserted } = await client.query<{ id: string; message_id: string }>(
      `INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event, timestamp, sent_at, received_at, payload)
       SELECT x.id, $1, $2, 'api', x.message_id, x.type, x.user_id, x.anonymous_id, x.event, x.ts, x.sent_at, $3, x.payload::json
       FROM jsonb_to_recordset($4::jsonb) AS x(id uuid, message_id text, type text, user_id text, anonymous_id text, event text, ts timestamptz, sent_at timestamptz, payload text)
       RETURNING id, message_id`,
      [
        opts.workspaceId,
        opts.sourceId ?? null,
        now,
        JSON.stringify(
          rows.map((r) => ({
            id: newRowId(),
            message_id: r.messageId,
            type: r.m.type,
            user_id: (r.m.userId as string) ?? null,
            anonymous_id: (r.m.anonymousId as string) ?? null,
            event: (r.m.event as string) ?? null,
            ts: r.timestamp,
            sent_at: (r.m.sentAt as string) ?? null,
            // its text as ingest stores it (a json column keeps the text as written), not as jsonb would reorder and space it
            payload: stringifyExact(r.payload),
          })),
        ),
      ],
    );
    const idByMessageId = new Map(inserted.map((r) => [r.message_id, r.id]));
    const ids = rows.map((r) => idByMessageId.get(r.messageId)!);
    const deliveryIds = await createDeliveries(
      client as unknown as pg.PoolClient,
      ids.flatMap((messageRowId) =>
        opts.destinationIds.map((destinationId) => ({ workspaceId: opts.workspaceId, messageRowId, destinationId })),
      ),
    );
    await client.query("COMMIT");
    return { rowIds: ids, messageIds: rows.map((r) => r.messageId), deliveryIds };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

/** Counts deliveries by state for a destination. */
export async function deliveryStates(databaseUrl: string, destinationId: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string; n: number }>(
      "SELECT state, count(*)::int AS n FROM deliveries WHERE destination_id = $1 GROUP BY state",
      [destinationId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  } finally {
    await client.end();
  }
}
