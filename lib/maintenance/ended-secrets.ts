import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";

/**
 * A rotation's previous destination secrets once their grace periods have ended
 * (docs/signing.md#secret-rotation): no request is signed with them any more (prepareSigning checks
 * the end when it prepares), so the maintenance run clears them from the row. One statement: a
 * workspace holds at most 50 destinations, and few are ever in a grace period.
 */
export const CLEAR_ENDED_SECRETS = `
  UPDATE destinations SET
    previous_shared_secret = CASE WHEN previous_shared_secret_expires_at <= $1 THEN NULL ELSE previous_shared_secret END,
    previous_shared_secret_expires_at = CASE WHEN previous_shared_secret_expires_at <= $1 THEN NULL ELSE previous_shared_secret_expires_at END,
    previous_standard_secret = CASE WHEN previous_standard_secret_expires_at <= $1 THEN NULL ELSE previous_standard_secret END,
    previous_standard_secret_expires_at = CASE WHEN previous_standard_secret_expires_at <= $1 THEN NULL ELSE previous_standard_secret_expires_at END
  WHERE previous_shared_secret_expires_at <= $1 OR previous_standard_secret_expires_at <= $1`;

/** Clears the previous secrets whose grace period ended by `now`; returns how many destinations it changed. */
export async function clearEndedSecrets(opts: { now?: Date; db?: Pick<pg.Pool, "query"> } = {}): Promise<number> {
  const r = await (opts.db ?? pool()).query(CLEAR_ENDED_SECRETS, [(opts.now ?? new Date()).toISOString()]);
  return r.rowCount ?? 0;
}
