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

/** The source a write key belongs to, with its connected destinations for routing. */
export type TrackingSource = { id: string; workspaceId: string; enabled: boolean; destinations: ConnectedDestination[] };

/**
 * One indexed query per request, no cache: a rotated or disabled key stops working at once in
 * every process. The key before the last rotation works until its grace period ends, by the
 * database's clock (docs/tracking-api.md#write-key-rotation). Measured: ~0.1 ms of Postgres and
 * ~0.2 ms of Node CPU per request, 3–4 % of what a 100-message batch costs in all; a cache that
 * keeps revocation exact is sketched in docs/architecture.md#ingest-throughput.
 */
export async function findSourceByWriteKey(writeKey: string): Promise<TrackingSource | null> {
  // Keys are 32 alphanumerics (lib/sources/sources.ts); anything far from that names no source and
  // is not sent to Postgres, which would refuse a NUL byte with an error (a 500) instead of a 401.
  if (writeKey.length > 256 || writeKey.includes("\u0000")) return null;
  const { rows } = await pool().query<{ id: string; workspace_id: string; enabled: boolean; destinations: ConnectedDestination[] | null }>({
    name: "tracking-source-by-write-key",
    text: `SELECT s.id, s.workspace_id, s.enabled,
              (SELECT json_agg(json_build_object('id', d.id, 'enabled', d.enabled, 'filter', d.filter))
                 FROM destination_sources ds JOIN destinations d ON d.id = ds.destination_id
                WHERE ds.source_id = s.id) AS destinations
         FROM sources s
        WHERE s.write_key = $1 OR (s.previous_write_key = $1 AND s.previous_write_key_expires_at > now())`,
    values: [writeKey],
  });
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, workspaceId: row.workspace_id, enabled: row.enabled, destinations: row.destinations ?? [] };
}
