import type pg from "pg";
import { pool } from "../db";
import { log } from "../log";
import { scanSerializedJson } from "./json-scan";
import { MAX_JSON_DEPTH, MAX_MESSAGE_BYTES } from "./limits";
import { isPlainObject, type Rejection } from "./normalise";

/** The debugger keeps this many rejected calls per source; older ones are pruned as new ones come. */
export const KEEP_REJECTED_PER_SOURCE = 500;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Text Postgres can store: no NUL, no lone surrogates (they come from clients' `\u` escapes). */
export const storableText = (s: string | null): string | null => (s === null ? null : s.replace(/\0/g, "").replace(LONE_SURROGATE, "\ufffd"));

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
  if (scan.depth > MAX_JSON_DEPTH || scan.hasNul || scan.hasLoneSurrogate) return { omitted: "the message cannot be stored as JSON", preview: storableText(json.slice(0, 1024)) };
  return value;
}

const PRUNE = `
  DELETE FROM source_calls
   WHERE source_id = $1
     AND id <= (SELECT id FROM source_calls WHERE source_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`;

type Queryable = Pick<pg.PoolClient, "query">;

async function insertCalls(db: Queryable, sourceId: string, receivedAt: string, calls: { t: string | null; m: string | null; r: string; p: unknown }[]): Promise<void> {
  await db.query(
    `INSERT INTO source_calls (source_id, received_at, accepted, type, message_id, reason, payload)
     SELECT $1, $2, false, r.t, r.m, r.r, r.p FROM json_to_recordset($3::json) AS r(t text, m text, r text, p jsonb)`,
    [sourceId, receivedAt, JSON.stringify(calls)],
  );
  // Bounded growth at the cost of one index range scan, and only on the rejection path.
  await db.query(PRUNE, [sourceId, KEEP_REJECTED_PER_SOURCE]);
}

/** Rejected messages of an accepted request, in the request's transaction. */
export async function recordRejections(client: pg.PoolClient, opts: { sourceId: string; receivedAt: string; rejections: Rejection[] }): Promise<void> {
  const calls = opts.rejections.slice(0, KEEP_REJECTED_PER_SOURCE).map((r) => ({
    t: storableText(r.type),
    m: storableText(r.messageId),
    r: storableText(`message ${r.index}: ${r.reason}`)!,
    p: debuggerPayload(r.raw),
  }));
  await insertCalls(client, opts.sourceId, opts.receivedAt, calls);
}

/**
 * A request refused as a whole (bad JSON, too large…) whose source is known from its Basic auth:
 * shown in the debugger. Best effort: the client's 400 does not depend on it.
 */
export async function recordRefusedCall(opts: { sourceId: string; receivedAt: string; reason: string; body: Buffer | null }): Promise<void> {
  const preview = opts.body ? storableText(opts.body.subarray(0, 1024).toString("utf8")) : null;
  try {
    await insertCalls(pool(), opts.sourceId, opts.receivedAt, [{ t: null, m: null, r: storableText(opts.reason)!, p: preview === null ? null : { body: preview } }]);
  } catch (err) {
    log().warn({ sourceId: opts.sourceId, err: (err as Error).message }, "could not record a refused tracking call");
  }
}
