import "server-only";
import crypto from "node:crypto";
import os from "node:os";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";
import { processWide, type Closing } from "../platform/runtime";
import { metrics } from "./counters";

/**
 * Each process pushes its whole counter snapshot (absolute values, so a repeated or lost push is
 * harmless) to its own metric_instances row every few seconds; the same write is the process's
 * heartbeat, which is how /metrics counts live workers. A process killed with SIGKILL loses at most
 * the counts of its last interval; a graceful stop pushes once more (closeRuntime's "metrics" stage).
 */
export const PUSH_INTERVAL_MS = 5_000;

type PushState = { id: string; role: string; startedAt: string; timer: NodeJS.Timeout; pushing?: Promise<void> };

const UPSERT = `
  INSERT INTO metric_instances (id, role, hostname, pid, started_at, seen_at, snapshot)
  VALUES ($1, $2, $3, $4, $5, now(), $6::jsonb)
  ON CONFLICT (id) DO UPDATE SET seen_at = now(), role = EXCLUDED.role, snapshot = EXCLUDED.snapshot`;

async function push(s: PushState, role = s.role): Promise<void> {
  const snapshot = await metrics().registry.getMetricsAsJSON();
  await pool().query(UPSERT, [s.id, role, os.hostname(), process.pid, s.startedAt, JSON.stringify(snapshot)]);
}

function pushSafely(s: PushState, role?: string): Promise<void> {
  s.pushing ??= push(s, role)
    .catch((err: Error) => logger().debug({ err: err.message }, "metrics push failed; next interval retries"))
    .finally(() => (s.pushing = undefined));
  return s.pushing;
}

/**
 * Starts this process's pushes, once: at start-up, by the web app (instrumentation.ts) and the worker
 * (worker/index.ts); later calls are no-ops. Counting never starts it (counts are only memory).
 */
export function startMetricsPush(role: "web" | "worker" | "ingest"): void {
  processWide("metrics push", () => start(role), PUSH_CLOSING);
}

function start(role: "web" | "worker" | "ingest"): PushState {
  const state: PushState = {
    id: crypto.randomUUID(),
    role,
    startedAt: new Date().toISOString(),
    timer: undefined as unknown as NodeJS.Timeout,
  };
  state.timer = setInterval(() => void pushSafely(state), PUSH_INTERVAL_MS);
  state.timer.unref();
  void pushSafely(state);
  return state;
}

/**
 * At shutdown, before the pool closes (runtime.ts): pushes the final counts and stops. The row
 * becomes `stopped`, so a worker that stopped leaves the live-worker count at once; it keeps the
 * totals, so the counters start again from zero for any later push (a row of its own).
 */
const PUSH_CLOSING: Closing<PushState> = {
  stage: "metrics",
  close: async (s) => {
    clearInterval(s.timer);
    await s.pushing;
    await pushSafely(s, "stopped");
    metrics().registry.resetMetrics();
  },
};
