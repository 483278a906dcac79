import crypto from "node:crypto";
import os from "node:os";
import { pool } from "../db";
import { log } from "../log";
import { metrics } from "./counters";

/**
 * Each process pushes its whole counter snapshot (absolute values, so a repeated or lost push is
 * harmless) to its own metric_instances row every few seconds; the same write is the process's
 * heartbeat, which is how /metrics counts live workers. A process killed with SIGKILL loses at most
 * the counts of its last interval; a graceful stop pushes once more (flushMetrics).
 */
export const PUSH_INTERVAL_MS = 5_000;

type PushState = { id: string; role: string; startedAt: string; timer: NodeJS.Timeout; pushing?: Promise<void> };
const g = globalThis as unknown as { __eventrailPush?: PushState };

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
    .catch((err: Error) => log().debug({ err: err.message }, "metrics push failed; next interval retries"))
    .finally(() => (s.pushing = undefined));
  return s.pushing;
}

/** Starts this process's pushes (once; later calls are no-ops). Web processes start on first use. */
export function startMetricsPush(role: "web" | "worker"): void {
  if (g.__eventrailPush) return;
  const state: PushState = { id: crypto.randomUUID(), role, startedAt: new Date().toISOString(), timer: undefined as unknown as NodeJS.Timeout };
  state.timer = setInterval(() => void pushSafely(state), PUSH_INTERVAL_MS);
  state.timer.unref();
  g.__eventrailPush = state;
  void pushSafely(state);
}

/**
 * Pushes the final counts and stops (graceful shutdown, before the pool closes). The row becomes
 * `stopped`, so a worker that stopped leaves the live-worker count at once.
 */
export async function flushMetrics(): Promise<void> {
  const s = g.__eventrailPush;
  if (!s) return;
  clearInterval(s.timer);
  await s.pushing;
  await pushSafely(s, "stopped");
  g.__eventrailPush = undefined;
}
