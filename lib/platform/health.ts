import "server-only";
import { pool } from "./db";

export type Health = { ok: boolean; database: "ok" | "unreachable"; queue: "ok" | "missing" | "unreachable" };

/** Database reachable and the pg-boss schema installed (a worker has started against it). */
export async function checkHealth(): Promise<Health> {
  try {
    const r = await pool().query<{ queue: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = 'pgboss' AND table_name = 'queue') AS queue",
    );
    const queue = r.rows[0].queue ? "ok" : "missing";
    return { ok: queue === "ok", database: "ok", queue };
  } catch {
    return { ok: false, database: "unreachable", queue: "unreachable" };
  }
}
