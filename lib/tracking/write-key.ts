import "server-only";
import { pool } from "../platform/db";
import type { ConnectedDestination } from "../routing/route-message";

/**
 * The write key of `Authorization: Basic base64("<key>:")` (Segment's libraries; the password is
 * empty). Some clients omit the colon; the user name is the key either way.
 */
export function writeKeyFromAuthorization(header: string | null): string | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const user = decoded.includes(":") ? decoded.slice(0, decoded.indexOf(":")) : decoded;
  return user === "" ? null : user;
}

/**
 * The source a write key belongs to, with its connected destinations for routing. `writeKey` (the
 * key the request named) and `routingVersion` are what the ingest statement re-checks
 * (lib/tracking/persist.ts), so that a source from the cache below is never used stale.
 */
export type TrackingSource = {
  id: string;
  workspaceId: string;
  enabled: boolean;
  destinations: ConnectedDestination[];
  writeKey: string;
  routingVersion: number;
  /** The tracking plan its calls are checked against, by the version it had when read (lib/tracking/plan-check.ts). */
  plan: { id: string; version: number } | null;
};

/**
 * One indexed query: the key's source as the database has it now. The key before the last
 * rotation works until its grace period ends, by the database's clock
 * (docs/tracking-api.md#write-key-rotation).
 */
export async function findSourceByWriteKey(writeKey: string): Promise<TrackingSource | null> {
  // Keys are 32 alphanumerics (lib/sources/sources.ts); anything far from that names no source and
  // is not sent to Postgres, which would refuse a NUL byte with an error (a 500) instead of a 401.
  if (writeKey.length > 256 || writeKey.includes("\u0000")) return null;
  const { rows } = await pool().query<{
    id: string;
    workspace_id: string;
    enabled: boolean;
    routing_version: number;
    destinations: ConnectedDestination[] | null;
    plan_id: string | null;
    plan_version: number | null;
  }>({
    name: "tracking-source-by-write-key",
    text: `SELECT s.id, s.workspace_id, s.enabled, s.routing_version, tp.id AS plan_id, tp.version AS plan_version,
              (SELECT json_agg(json_build_object('id', d.id, 'enabled', d.enabled, 'filter', d.filter, 'ordering', d.ordering))
                 FROM destination_sources ds JOIN destinations d ON d.id = ds.destination_id
                WHERE ds.source_id = s.id) AS destinations
         FROM sources s LEFT JOIN tracking_plans tp ON tp.id = s.tracking_plan_id
        WHERE s.write_key = $1 OR (s.previous_write_key = $1 AND s.previous_write_key_expires_at > now())`,
    values: [writeKey],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    enabled: row.enabled,
    destinations: row.destinations ?? [],
    writeKey,
    routingVersion: row.routing_version,
    plan: row.plan_id === null ? null : { id: row.plan_id, version: row.plan_version ?? 0 },
  };
}

/**
 * Sources cached per write key in this process (docs/architecture.md#write-key-cache). Only keys
 * that named an enabled source are kept, so unknown keys (guesses, an attacker's) cannot fill it;
 * and it holds at most this many, the oldest dropped first.
 */
export const WRITE_KEY_CACHE_SIZE = 1000;
const cache = new Map<string, TrackingSource>();

/**
 * The key's source from this process's cache, or from the database (then cached when enabled).
 * `cached` says which: a cached source may be stale, and is only ever used by a statement that
 * re-checks it (storeCall); a caller that stores nothing through it must use a fresh one.
 */
export async function sourceByWriteKey(writeKey: string): Promise<{ source: TrackingSource | null; cached: boolean }> {
  const hit = cache.get(writeKey);
  if (hit) return { source: hit, cached: true };
  const source = await findSourceByWriteKey(writeKey);
  if (source?.enabled) {
    if (cache.size >= WRITE_KEY_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(writeKey, source);
  }
  return { source, cached: false };
}

/** Drops a key's cached source (the ingest statement found it stale). */
export function forgetWriteKey(writeKey: string): void {
  cache.delete(writeKey);
}
