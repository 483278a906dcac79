import "server-only";
import { logger } from "./logger";

/**
 * The one owner of every process-wide resource: the pg pool and Prisma client (db.ts), the
 * process's pg-boss (queue.ts), the metric counters and their push (lib/metrics), the webhook
 * dispatchers (lib/webhooks/dispatchers.ts) and the per-origin limiter (lib/delivery/process.ts).
 * Each is still created lazily where it is used, but through `processWide`, which keeps it in one
 * registry on globalThis (one per process, surviving Next's dev reloads) together with how and when
 * it closes. `closeRuntime()` is the only shutdown there is: the worker's SIGTERM handler, tests and
 * benchmarks call it, and it closes everything in SHUTDOWN_ORDER.
 */
export const SHUTDOWN_ORDER = [
  /** stop taking work: the worker's job intake, and rounds still in flight */
  "intake",
  /** push the final metric counts (while the pool is still open) */
  "metrics",
  /** webhook connection pools */
  "dispatchers",
  /** pg-boss */
  "queue",
  /** Prisma, then the pool: last, since everything above may still write through it */
  "database",
] as const;
export type ShutdownStage = (typeof SHUTDOWN_ORDER)[number];

type Entry = { value: unknown; stage?: ShutdownStage; close?: (value: unknown) => Promise<void> };
type Registry = { entries: Map<string, Entry>; closing?: Promise<{ failed: string[] }> };

const g = globalThis as unknown as { __eventrailRuntime?: Registry };
const registry = (): Registry => (g.__eventrailRuntime ??= { entries: new Map() });

/** How a resource closes: at which stage of closeRuntime(), and with what. Memory-only resources have none. */
export type Closing<T> = { stage: ShutdownStage; close: (value: T) => Promise<void> };

/**
 * The process's `name` resource: created by `create` on first use, the same one afterwards. With
 * `closing`, closeRuntime() closes and forgets it at that stage, and a later call creates it afresh
 * (tests and benchmarks close the runtime, then point it at another database).
 */
export function processWide<T>(name: string, create: () => T, closing?: Closing<T>): T {
  const entries = registry().entries;
  const found = entries.get(name);
  if (found) return found.value as T;
  const value = create();
  entries.set(name, { value, stage: closing?.stage, close: closing?.close as Entry["close"] });
  return value;
}

/** The resource if it exists; never creates it. */
export function existing<T>(name: string): T | undefined {
  return registry().entries.get(name)?.value as T | undefined;
}

/** Forgets a resource without closing it (it failed to start): the next use creates it afresh. */
export function forget(name: string): void {
  registry().entries.delete(name);
}

/** Work for closeRuntime() to do at `stage` that is not a resource of its own (the worker's job intake). */
export function atShutdown(name: string, stage: ShutdownStage, close: () => Promise<void>): void {
  registry().entries.set(name, { value: null, stage, close: () => close() });
}

/**
 * Closes every resource, stage by stage in SHUTDOWN_ORDER; within a stage the most recently created
 * closes first (it may use an earlier one, as Prisma uses the pool). One that fails to close is logged
 * and named in `failed`, and the rest still close: it never throws, so tests and benchmarks can call
 * it in any state. Calls while closing share the one closing; in-memory resources (no closing) stay.
 */
export function closeRuntime(): Promise<{ failed: string[] }> {
  const r = registry();
  r.closing ??= (async () => {
    const failed: string[] = [];
    for (const stage of SHUTDOWN_ORDER) {
      const due = [...r.entries].filter(([, e]) => e.stage === stage).reverse();
      for (const [name, e] of due) {
        r.entries.delete(name);
        try {
          await e.close!(e.value);
        } catch (err) {
          failed.push(name);
          logger().warn({ resource: name, stage, err: (err as Error).message }, "resource did not close cleanly");
        }
      }
    }
    return { failed };
  })().finally(() => (r.closing = undefined));
  return r.closing;
}
