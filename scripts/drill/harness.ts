/**
 * One drill run: a workspace of its own, destinations pointing at drill receivers, events sent through
 * the real Tracking API while a fault is injected, then a wait until every delivery is final (or the
 * time limit), and the verdict from the database and the receivers.
 */
import type pg from "pg";
import { ADMIN_TOKEN, ApiClient, type Proc } from "../../test/harness/stack";
import type { EmbeddedDb } from "../../lib/platform/embedded-postgres";
import { computeDrillReport, percentile, type DeliveryRow, type DrillReport } from "./report";
import type { DrillReceiver } from "./receiver";
import { sendEvents } from "./sender";

export type Stack = {
  appUrl: string;
  db: pg.Pool;
  workers: Proc[];
  startWorker(): Promise<Proc>;
  restartPostgres(downMs: number): Promise<void>;
  pg: () => EmbeddedDb;
};

export type DrillDestination = {
  name: string;
  receivers: DrillReceiver[];
  mode?: "any" | "every";
  retryWindowMinutes?: number;
  /** docs/webhooks.md#rate-limits */
  rateLimit?: { perSecond?: number; concurrency?: number };
};

export type Scenario = {
  id: string;
  title: string;
  events: number;
  /** pause between batches of 100, to spread the events over the fault */
  spacingMs: number;
  /** events per /v1/batch request (100 unless told) */
  batchSize?: number;
  timeLimitMs: number;
  destinations(): Promise<DrillDestination[]>;
  /** runs alongside the sending; resolves when the fault is over */
  fault?(stack: Stack): Promise<void>;
  /** receivers whose latency is reported (first 2xx receipt − when the event was sent) */
  latencyOf?: string;
};

export type DrillResult = DrillReport & {
  id: string;
  title: string;
  seconds: number;
  attempts: number;
  refusals: number;
  requestsReceived: number;
  /** sent → received; afterAck: the Tracking API's 200 → received (the worker's part, without ingest's noise) */
  latency?: { p50: number; p99: number; n: number; afterAck?: { p50: number; p99: number } };
  /** where the measured receiver's latency went, stage by stage (p50 / p99 ms of each stage) */
  stages?: { name: string; p50: number; p99: number }[];
  pendingAtLimit: boolean;
};

export async function finalRows(db: pg.Pool, sourceId: string): Promise<DeliveryRow[]> {
  const { rows } = await db.query<{ message_id: string; destination_id: string; state: string; last_error: string | null }>(
    `SELECT m.message_id, d.destination_id, d.state, d.last_error FROM messages m JOIN deliveries d ON d.message_row_id = m.id WHERE m.source_id = $1`,
    [sourceId],
  );
  return rows.map((r) => ({ messageId: r.message_id, destinationId: r.destination_id, state: r.state, lastError: r.last_error }));
}

export async function runScenario(stack: Stack, s: Scenario): Promise<DrillResult> {
  const started = Date.now();
  const admin = new ApiClient(stack.appUrl, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: `drill ${s.id}` });
  const api = new ApiClient(stack.appUrl, ws.token, ws.workspace.id);
  const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: `drill ${s.id}` });
  const dests = await s.destinations();
  const created: { id: string; d: DrillDestination }[] = [];
  for (const d of dests) {
    const dto = await api.post<{ id: string }>("/api/destinations", {
      name: d.name,
      urls: d.receivers.map((r, i) => `${r.url}/hook/${i}`),
      sourceIds: [source.id],
      mode: d.mode ?? "any",
      retryWindowMinutes: d.retryWindowMinutes ?? 240,
      ...(d.rateLimit ? { rateLimit: d.rateLimit } : {}),
    });
    created.push({ id: dto.id, d });
  }

  const deadline = started + s.timeLimitMs;
  const [sent] = await Promise.all([
    sendEvents({
      baseUrl: stack.appUrl,
      writeKey: source.writeKey,
      tag: `d${s.id}`,
      count: s.events,
      deadline,
      spacingMs: s.spacingMs,
      batchSize: s.batchSize,
    }),
    s.fault?.(stack),
  ]);

  // Wait for every delivery to be final, riding out a database that is still coming back.
  let rows: DeliveryRow[] = [];
  let pendingAtLimit = true;
  while (Date.now() < deadline) {
    rows = await finalRows(stack.db, source.id).catch(() => rows);
    if (rows.length >= sent.accepted.size * created.length && rows.every((r) => r.state !== "pending")) {
      pendingAtLimit = false;
      break;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  rows = await finalRows(stack.db, source.id).catch(() => rows);

  const receipts = new Map<string, Map<string, number>>();
  for (const { id, d } of created) {
    // `every` sends each message to each URL once: a copy per receiver is not a duplicate, so count the most any one got.
    const merged = new Map<string, number>();
    const combine = d.mode === "every" ? Math.max : (a: number, b: number) => a + b;
    for (const rx of d.receivers) for (const [m, n] of rx.receipts) merged.set(m, combine(merged.get(m) ?? 0, n));
    receipts.set(id, merged);
  }
  const report = computeDrillReport({ accepted: sent.accepted, destinationIds: created.map((c) => c.id), rows, receipts });
  const attempts = (
    await stack.db
      .query<{ n: number }>(`SELECT count(*)::int AS n FROM attempts WHERE workspace_id = $1`, [ws.workspace.id])
      .catch(() => ({ rows: [{ n: -1 }] }))
  ).rows[0].n;

  let latency: DrillResult["latency"];
  let stages: DrillResult["stages"];
  const measured = created.find((c) => c.d.name === s.latencyOf);
  if (measured) {
    const rx = measured.d.receivers[0];
    const ms = [...rx.firstAt].map(([m, at]) => at - (sent.sentAt.get(m) ?? at)).sort((a, b) => a - b);
    latency = { p50: percentile(ms, 50), p99: percentile(ms, 99), n: ms.length };
    const fromAck = [...rx.firstAt].map(([m, at]) => at - (sent.ackedAt.get(m) ?? at)).sort((a, b) => a - b);
    latency.afterAck = { p50: percentile(fromAck, 50), p99: percentile(fromAck, 99) };
    stages = await latencyStages(stack.db, measured.id, sent, rx.firstAt).catch(() => undefined);
  }
  const requestsReceived = [...new Set(created.flatMap((c) => c.d.receivers))].reduce((n, rx) => n + rx.requests, 0);
  return {
    ...report,
    id: s.id,
    title: s.title,
    seconds: (Date.now() - started) / 1000,
    attempts,
    refusals: sent.refusals,
    requestsReceived,
    latency,
    stages,
    pendingAtLimit,
  };
}

export function formatResult(r: DrillResult): string {
  const reasons = Object.entries(r.failedReasons)
    .map(([k, n]) => `${n}× ${k}`)
    .join("; ");
  const lines = [
    `[drill ${r.id}] ${r.title}`,
    `  accepted ${r.accepted} · delivered ${r.delivered} · failed ${r.failed}${reasons ? ` (${reasons})` : ""} · lost ${r.lost} · duplicates ${r.duplicates}`,
    `  deliveries ${r.deliveries} · HTTP attempts recorded ${r.attempts}, requests received ${r.requestsReceived} · /v1 refusals retried by the client ${r.refusals} · ${r.seconds.toFixed(1)} s${r.pendingAtLimit ? " · TIME LIMIT REACHED" : ""}`,
  ];
  if (r.latency)
    lines.push(
      `  healthy URL latency (sent → received): p50 ${r.latency.p50} ms · p99 ${r.latency.p99} ms over ${r.latency.n} events${r.latency.afterAck ? ` (acked → received: p50 ${r.latency.afterAck.p50} ms · p99 ${r.latency.afterAck.p99} ms)` : ""}`,
    );
  if (r.stages) lines.push(`  its stages (p50 / p99 ms): ${r.stages.map((s) => `${s.name} ${s.p50} / ${s.p99}`).join(" · ")}`);
  for (const l of r.lostExamples) lines.push(`  LOST ${l}`);
  return lines.join("\n");
}

/**
 * Splits the measured receiver's latency into stages, from the database: sent → answered 200 by the
 * Tracking API (acked) → its `deliver` job fetched by a worker (pg-boss started_on) → the first
 * attempt's POST started (attempts.started_at) → received. Which stage grows beside a dead URL says
 * where a healthy delivery waits (docs/webhooks.md#endpoint-isolation).
 */
async function latencyStages(
  db: pg.Pool,
  destinationId: string,
  sent: { sentAt: Map<string, number>; ackedAt: Map<string, number> },
  receivedAt: Map<string, number>,
): Promise<{ name: string; p50: number; p99: number }[]> {
  const { rows } = await db.query<{ message_id: string; fetched: number | null; posted: number | null }>(
    `SELECT m.message_id,
            extract(epoch FROM j.started_on) * 1000 AS fetched,
            extract(epoch FROM a.started_at) * 1000 AS posted
       FROM deliveries d
       JOIN messages m ON m.id = d.message_row_id
       LEFT JOIN LATERAL (SELECT started_on FROM pgboss.job
                           WHERE name = 'deliver' AND data->'deliveryIds' ? d.id::text ORDER BY created_on LIMIT 1) j ON true
       LEFT JOIN LATERAL (SELECT started_at FROM attempts WHERE delivery_id = d.id ORDER BY started_at LIMIT 1) a ON true
      WHERE d.destination_id = $1`,
    [destinationId],
  );
  const spans: Record<string, number[]> = { "sent→acked": [], "acked→fetched": [], "fetched→posted": [], "posted→received": [] };
  for (const r of rows) {
    const sentAt = sent.sentAt.get(r.message_id);
    const acked = sent.ackedAt.get(r.message_id);
    const received = receivedAt.get(r.message_id);
    if (sentAt === undefined || acked === undefined || received === undefined || r.fetched === null || r.posted === null) continue;
    spans["sent→acked"].push(acked - sentAt);
    spans["acked→fetched"].push(Number(r.fetched) - acked);
    spans["fetched→posted"].push(Number(r.posted) - Number(r.fetched));
    spans["posted→received"].push(received - Number(r.posted));
  }
  return Object.entries(spans).map(([name, v]) => {
    const sorted = v.sort((a, b) => a - b);
    return { name, p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)) };
  });
}
