import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";
import { stringifyExact } from "../platform/exact-json";
import { logger } from "../platform/logger";
import { scanSerializedJson } from "./json-scan";
import { MAX_JSON_DEPTH, MAX_MESSAGE_BYTES } from "./limits";
import { isPlainObject, type Rejection } from "./normalise";
import { rejectionCategory, type RejectionCategory } from "./rejection-category";
import { countRejections } from "../metrics/tracking";

/** The debugger keeps this many rejected calls per source; older ones are pruned as new ones come. */
export const KEEP_REJECTED_PER_SOURCE = 500;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Text Postgres can store: no NUL, no lone surrogates (they come from clients' `\u` escapes). */
export const storableText = (s: string | null): string | null =>
  s === null ? null : s.replace(/\0/g, "").replace(LONE_SURROGATE, "\ufffd");

/** The rejected message as the debugger shows it, unless it is what made it unstorable. */
export function debuggerPayload(raw: unknown): unknown {
  const value = isPlainObject(raw) && "writeKey" in raw ? { ...raw, writeKey: "[redacted]" } : raw;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {}
  if (json === undefined) return { omitted: "the message could not be serialized" };
  if (json.length > MAX_MESSAGE_BYTES) return { omitted: `the message is larger than 32 KB`, preview: storableText(json.slice(0, 1024)) };
  const scan = scanSerializedJson(json);
  if (scan.depth > MAX_JSON_DEPTH || scan.hasNul || scan.hasLoneSurrogate)
    return { omitted: "the message cannot be stored as JSON", preview: storableText(json.slice(0, 1024)) };
  return value;
}

const PRUNE = `
  DELETE FROM source_calls
   WHERE source_id = $1
     AND id <= (SELECT id FROM source_calls WHERE source_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`;

type Queryable = Pick<pg.PoolClient, "query">;

async function insertCalls(
  db: Queryable,
  sourceId: string,
  receivedAt: string,
  calls: { t: string | null; m: string | null; r: string; p: unknown }[],
): Promise<void> {
  await db.query(
    `INSERT INTO source_calls (source_id, received_at, accepted, type, message_id, reason, payload)
     SELECT $1, $2, false, r.t, r.m, r.r, r.p FROM json_to_recordset($3::json) AS r(t text, m text, r text, p jsonb)`,
    [sourceId, receivedAt, stringifyExact(calls)],
  );
  // Bounded growth at the cost of one index range scan, and only on the rejection path.
  await db.query(PRUNE, [sourceId, KEEP_REJECTED_PER_SOURCE]);
}

/**
 * The source's rejection counter (rejection_counts: per hour and reason category), the source
 * page's "rejected in the last 24 h" and part of its health (lib/sources/health.ts). One upsert per
 * request, categories in a fixed order so that two requests never lock them in opposite orders.
 */
async function countRejectionsIn(db: Queryable, sourceId: string, receivedAt: string, categories: RejectionCategory[]): Promise<void> {
  const counts = new Map<string, number>();
  for (const c of categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  const sorted = [...counts.keys()].sort();
  await db.query(
    `INSERT INTO rejection_counts (source_id, hour, category, count)
     SELECT $1, date_trunc('hour', $2::timestamptz), c.category, c.n FROM unnest($3::text[], $4::int[]) WITH ORDINALITY AS c(category, n, i)
     ORDER BY c.i
     ON CONFLICT (source_id, hour, category) DO UPDATE SET count = rejection_counts.count + EXCLUDED.count`,
    [sourceId, receivedAt, sorted, sorted.map((c) => counts.get(c)!)],
  );
}

/** Rejected messages of an accepted request, in the request's transaction: debugger entries and the counter. */
export async function recordRejections(
  client: pg.PoolClient,
  opts: { sourceId: string; receivedAt: string; rejections: Rejection[] },
): Promise<void> {
  const calls = opts.rejections.slice(0, KEEP_REJECTED_PER_SOURCE).map((r) => ({
    t: storableText(r.type),
    m: storableText(r.messageId),
    r: storableText(`message ${r.index}: ${r.reason}`)!,
    p: debuggerPayload(r.raw),
  }));
  await insertCalls(client, opts.sourceId, opts.receivedAt, calls);
  await countRejectionsIn(
    client,
    opts.sourceId,
    opts.receivedAt,
    opts.rejections.map((r) => rejectionCategory(r.reason)),
  );
}

/**
 * A request refused as a whole (bad JSON, too large…) whose source is known from its Basic auth:
 * shown in the debugger. Best effort: the client's 400 does not depend on it.
 */
export async function recordRefusedCall(opts: {
  sourceId: string;
  receivedAt: string;
  reason: string;
  body: Buffer | null;
}): Promise<void> {
  const preview = opts.body ? storableText(opts.body.subarray(0, 1024).toString("utf8")) : null;
  try {
    await insertCalls(pool(), opts.sourceId, opts.receivedAt, [
      { t: null, m: null, r: storableText(opts.reason)!, p: preview === null ? null : { body: preview } },
    ]);
    await countRejectionsIn(pool(), opts.sourceId, opts.receivedAt, ["invalid_request"]);
    countRejections(opts.sourceId, ["invalid_request"]);
  } catch (err) {
    logger().warn({ sourceId: opts.sourceId, err: (err as Error).message }, "could not record a refused tracking call");
  }
}
