import "server-only";
import crypto from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../platform/db";
import { updateProfiles, type ProfileInput } from "../audiences/profiles";
import { createDeliveries, type NewDelivery } from "../delivery/enqueue";
import { routeMessage } from "../routing/route-message";
import type { NormalisedMessage, Rejection } from "./normalise";
import { recordRejections } from "./source-calls";
import type { TrackingSource } from "./write-key";

export type StoreResult = { inserted: number; duplicates: number; deliveries: number };

/**
 * All accepted messages in one statement: a JSON recordset (one parameter, parsed by Postgres)
 * rather than 13 params × N rows. `p` is json: Postgres copies the payload's text as written, so
 * nested objects keep the client's key order (docs/tracking-api.md#fidelity). Exact dedupe: rows whose (source, messageId) exists are skipped
 * and not returned, so they are neither routed nor delivered again.
 */
const INSERT_MESSAGES = `
  INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event,
                        "timestamp", original_timestamp, sent_at, received_at, payload)
  SELECT r.i, $1, $2, 'api', r.m, r.t, r.u, r.a, r.e, r.ts, r.ot, r.sa, $3, r.p
    FROM json_to_recordset($4::json) AS r(i uuid, m text, t text, u text, a text, e text, ts timestamptz, ot timestamptz, sa timestamptz, p json)
  ON CONFLICT (source_id, message_id) DO NOTHING
  RETURNING id`;

const str = (v: string | null) => (v === null ? "null" : JSON.stringify(v));

/**
 * The recordset's JSON, written around each message's already serialized payload: serializing
 * the rows with JSON.stringify would serialize every payload a second time.
 */
export function recordsetJson(rows: { rowId: string; message: NormalisedMessage }[]): string {
  const parts = rows.map(
    ({ rowId, message: m }) =>
      `{"i":"${rowId}","m":${str(m.messageId)},"t":"${m.type}","u":${str(m.userId)},"a":${str(m.anonymousId)},"e":${str(m.event)},"ts":"${m.timestamp}","ot":${str(m.originalTimestamp)},"sa":${str(m.sentAt)},"p":${m.payloadJson}}`,
  );
  return `[${parts.join(",")}]`;
}

async function insertMessages(
  client: pg.PoolClient,
  source: TrackingSource,
  receivedAt: string,
  rows: { rowId: string; message: NormalisedMessage }[],
): Promise<Set<string>> {
  const { rows: inserted } = await client.query<{ id: string }>({
    name: "tracking-insert-messages",
    text: INSERT_MESSAGES,
    values: [source.workspaceId, source.id, receivedAt, recordsetJson(rows)],
  });
  return new Set(inserted.map((r) => r.id));
}

const toProfileInput = (m: NormalisedMessage): ProfileInput => ({
  type: m.type,
  userId: m.userId,
  anonymousId: m.anonymousId,
  previousId: (m.payload.previousId as string | undefined) ?? null,
  traits: (m.payload.traits as Record<string, unknown> | undefined) ?? null,
  timestamp: m.timestamp,
});

/**
 * Stores one request's outcome in one transaction: the new messages, their deliveries and
 * `deliver` jobs (routing decided here), profile updates, and the rejections for the debugger.
 * When this returns, all of it is committed; when it throws, none of it is.
 */
export async function storeCall(opts: {
  source: TrackingSource;
  receivedAt: string;
  accepted: NormalisedMessage[];
  rejections: Rejection[];
}): Promise<StoreResult> {
  const { source, receivedAt, rejections } = opts;
  // Duplicates inside one batch: the first one wins, as it would across batches. Sorted by
  // messageId, concurrent batches that share ids take their unique-index locks in one order, so
  // a client's retry racing its original cannot deadlock with it.
  const seen = new Set<string>();
  const unique = opts.accepted.filter((m) => {
    if (seen.has(m.messageId)) return false;
    seen.add(m.messageId);
    return true;
  });
  unique.sort((a, b) => (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0));
  if (unique.length === 0 && rejections.length === 0) return { inserted: 0, duplicates: opts.accepted.length, deliveries: 0 };

  return withTransaction(async (client) => {
    let insertedMessages: { rowId: string; message: NormalisedMessage }[] = [];
    if (unique.length > 0) {
      const withIds = unique.map((message) => ({ rowId: crypto.randomUUID(), message }));
      const inserted = await insertMessages(client, source, receivedAt, withIds);
      insertedMessages = inserted.size === withIds.length ? withIds : withIds.filter((x) => inserted.has(x.rowId));
    }

    const deliveries: NewDelivery[] = [];
    for (const { rowId, message } of insertedMessages) {
      for (const destinationId of routeMessage(message, source.destinations)) {
        deliveries.push({ workspaceId: source.workspaceId, messageRowId: rowId, destinationId });
      }
    }
    const created = await createDeliveries(client, deliveries);
    if (insertedMessages.length > 0) {
      await updateProfiles(client, { workspaceId: source.workspaceId, messages: insertedMessages.map((x) => toProfileInput(x.message)) });
    }
    if (rejections.length > 0) await recordRejections(client, { sourceId: source.id, receivedAt, rejections });
    return { inserted: insertedMessages.length, duplicates: opts.accepted.length - insertedMessages.length, deliveries: created.length };
  });
}
