import "server-only";
import type pg from "pg";
import { parseExactJson } from "../platform/exact-json";
import { hiddenIds } from "../platform/pg-arrays";
import type { StoredMessage } from "../webhooks/payload";
import { prepareSigning, type PreparedSigning, type SigningSettings } from "../webhooks/request";
import { prepareShape, type RequestShape } from "../webhooks/request-shape";
import { storedSettings } from "../destinations/stored";
import type { BatchSettings } from "../webhooks/batching";
import { storedAuth, storedTls, type EndpointAuth } from "../webhooks/endpoint-auth";
import type { ClientTls } from "../webhooks/dispatchers";
import type { SendingBatch } from "./batches";
import type { RateLimit } from "./rate-limit";
import type { Ordering } from "../destinations/contract";
import { planDelivery, type Plan } from "./fate";

/** A destination's settings as the worker needs them: loaded once per batch, shared by its deliveries. */
export type LoadedDestination = SigningSettings & {
  id: string;
  /** the destination's URLs less `disabledUrls`, those the endpoint alerts disabled */
  urls: string[];
  disabledUrls: string[];
  enabled: boolean;
  mode: "any" | "every";
  retryWindowMinutes: number;
  /** headers and keys prepared for signing, once per destination (docs/webhooks.md#delivery-cost) */
  signing: PreparedSigning;
  /** method, compiled mapping, URL templates (docs/request-shape.md), once per destination */
  shape: RequestShape;
  /** null: one event per request; else its deliveries go in batches (batches.ts, docs/request-shape.md#batching) */
  batch: BatchSettings | null;
  /** docs/webhooks.md#rate-limits (policy.ts admitDeliveries) */
  rateLimit: RateLimit;
  /** docs/webhooks.md#ordering (order.ts): "perUser" holds a key's later deliveries behind its earliest pending one */
  ordering: Ordering;
  /** endpoint authentication (docs/endpoint-auth.md): a bearer token on each request; null: none */
  auth: EndpointAuth | null;
  /** mutual TLS (docs/endpoint-auth.md#mutual-tls): its client certificate on each connection; null: none */
  clientTls: ClientTls | null;
};

/** A pending delivery with its message and destination, as the worker needs them. */
export type LoadedDelivery = {
  id: string;
  workspaceId: string;
  messageRowId: string;
  destinationId: string;
  pendingUrls: string[] | null;
  /** the only URLs it goes to, in place of its destination's: a test-send's and its replays' (docs/webhooks.md#replay) */
  targetUrls: string[] | null;
  /** a test-send's message (or its replay's): never retried */
  test: boolean;
  /** rounds that made at least one HTTP request so far (column attempt_count, which counts rounds, not requests) */
  rounds: number;
  firstAttemptAt: Date | null;
  lastError: string | null;
  lastStatus: number | null;
  /** `every` mode: some URL already failed for good in this attempt chain */
  someUrlFailed: boolean;
  message: StoredMessage;
  erased: boolean;
  /** the batch it joined (batches.ts), or null */
  batchId: string | null;
  /** queued again while an earlier job of it may be queued too: claimed before it is sent (claims.ts) */
  contested: boolean;
  /** its key when its destination ordered it at ingest (docs/webhooks.md#ordering), else null */
  orderKey: string | null;
  /** the hold limit let it go (docs/webhooks.md#hold-limit): sent without waiting for earlier ones */
  holdReleased: boolean;
  /** set on a batch's lead when the round sends its batch (batches.ts batchesToSend) */
  sendingBatch?: SendingBatch;
  /** the same object for every delivery of the batch to this destination */
  destination: LoadedDestination;
  /** what this job does with it: end, join, batch or alone, gated, limited (fate.ts planDelivery) */
  plan: Plan;
};

type Row = {
  id: string;
  workspace_id: string;
  message_row_id: string;
  destination_id: string;
  pending_urls: string[] | null;
  target_urls: string[] | null;
  test: boolean;
  attempt_count: number;
  first_attempt_at: Date | null;
  last_error: string | null;
  last_status: number | null;
  some_url_failed: boolean;
  batch_id: string | null;
  contested: boolean;
  order_key: string | null;
  hold_released: boolean;
  message_id: string;
  type: string;
  user_id: string | null;
  anonymous_id: string | null;
  timestamp: string;
  received_at: string;
  sent_at: string | null;
  /** the json column's text: the seed's body is written from it, and it is parsed (integers beyond 2^53 keeping their digits, exact-json.ts) only when read as an object */
  payload: string | null;
};

type DestinationRow = {
  id: string;
  urls: string[];
  disabled_urls: string[];
  headers: { name: string; value: string }[] | null;
  shared_secret: string | null;
  standard_webhooks: boolean;
  standard_secret: string | null;
  previous_shared_secret: string | null;
  previous_shared_secret_expires_at: Date | null;
  previous_standard_secret: string | null;
  previous_standard_secret_expires_at: Date | null;
  enabled: boolean;
  mode: string;
  retry_window_minutes: number;
  method: string;
  mapping: unknown;
  numbers: string;
  batch: unknown;
  ordering: string;
  max_hold_minutes: number;
  /** the destination filter column, for its drop and allow lists */
  filter: unknown;
  rate_limit_per_second: number | null;
  rate_limit_concurrency: number | null;
  auth: unknown;
  tls: unknown;
};

/** ISO 8601 UTC with milliseconds, formatted by Postgres: no Date parsing and re-formatting per row. */
const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The load statement ($1: the delivery ids); exported for its plan test (test/delivery-load.int.test.ts).
 * One round trip for a whole batch: the deliveries still pending and due (a job re-run after a crash
 * finds delivered ones done and rescheduled ones not yet due, and skips them), joined with their
 * messages (and their destinations, for pause and mode). The destinations' settings come in a
 * statement of their own (DESTINATIONS_SQL), one row per destination, not on each of its deliveries'
 * rows (docs/webhooks.md#delivery-cost).
 */
export const LOAD_DUE_SQL = `
-- The batch's deliveries by primary key first, filtered after (MATERIALIZED): with the filter beside
-- the ids, the planner may bitmap-scan an index of every pending delivery (deliveries_pending_idx)
-- and then keep the batch's, a cost that grows with the backlog instead of the batch
-- (docs/decisions/0011-delivery-batch-statements.md). The ids hidden from the planner (pg-arrays.ts
-- hiddenIds): planned with hundreds of them, it scans a table of up to ~100,000 rows instead.
WITH batch AS MATERIALIZED (SELECT * FROM deliveries WHERE id = ANY(${hiddenIds(1)}))
SELECT d.id, d.workspace_id, d.message_row_id, d.destination_id, d.pending_urls, d.target_urls, m.origin = 'test' AS test, d.attempt_count, d.first_attempt_at, d.last_error, d.last_status, bm.batch_id,
       -- queued again while an earlier job of it may be queued too: its round is claimed first (claims.ts)
       d.claimed_until IS NOT NULL AS contested,
       -- ordered delivery (lib/delivery/order.ts)
       d.order_key, d.hold_released_at IS NOT NULL AS hold_released,
       (t.mode = 'every' AND d.attempt_count > 0 AND EXISTS (
          SELECT 1 FROM attempts a
          WHERE a.message_row_id = d.message_row_id AND a.delivery_id = d.id AND a.outcome = 'failed' AND a.started_at >= d.first_attempt_at
       )) AS some_url_failed,
       m.message_id, m.type, m.user_id, m.anonymous_id, ${iso("m.timestamp")} AS timestamp, ${iso("m.received_at")} AS received_at,
       ${iso("m.sent_at")} AS sent_at, m.payload::text AS payload
FROM batch d
JOIN messages m ON m.id = d.message_row_id
JOIN destinations t ON t.id = d.destination_id
-- the batch it joined, if any (docs/decisions/0102-batch-membership.md)
LEFT JOIN delivery_batch_members bm ON bm.delivery_id = d.id
WHERE d.state = 'pending'
  AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
  -- A paused destination's deliveries wait, pending, with no attempt; resuming enqueues them again
  -- (docs/routing.md#pause, lib/destinations/pause.ts). A test-send is asked for by a person and goes.
  AND (t.paused_at IS NULL OR m.origin = 'test')`;

/** The settings of a batch's destinations ($1), one row each (toDestination). */
const DESTINATIONS_SQL = `
SELECT t.id,
       -- URLs the endpoint alerts disabled get nothing until re-enabled (docs/alerts.md#disabling)
       ARRAY(SELECT x.u FROM unnest(t.urls) WITH ORDINALITY AS x(u, i) WHERE NOT (x.u = ANY(coalesce(t.disabled_urls, '{}'))) ORDER BY x.i) AS urls,
       coalesce(t.disabled_urls, '{}') AS disabled_urls, t.headers, t.shared_secret, t.standard_webhooks, t.standard_secret, t.enabled,
       t.mode, t.retry_window_minutes, t.filter, t.method, t.mapping, t.numbers, t.batch, t.ordering, t.max_hold_minutes,
       -- a rotation's previous secrets sign until their grace periods end (docs/signing.md#secret-rotation)
       t.previous_shared_secret, t.previous_shared_secret_expires_at, t.previous_standard_secret, t.previous_standard_secret_expires_at,
       t.rate_limit_per_second, t.rate_limit_concurrency, t.auth, t.tls
-- The ids hidden from the planner (pg-arrays.ts hiddenIds): seen, on the batch pool's connections
-- (no sequential scans, lib/platform/db.ts batchPool) a plan for the batch's count of them was
-- cheaper than the kept one, so the prepared statement was planned again for every batch.
FROM destinations t WHERE t.id = ANY(${hiddenIds(1)})`;

/**
 * Deliveries of the batch whose destination or message no longer exists. deleteDestination deletes
 * a destination's deliveries in its transaction, but an ingest that read the source's destinations
 * just before may commit deliveries for it afterwards; retention deletes a message's deliveries with
 * it, but a replay racing it may commit a new one afterwards. No foreign key stops either
 * (docs/architecture.md#foreign-keys-on-the-hot-path). They are finished work: deleted, never sent
 * nor retried (and while pending they would keep their message from retention).
 */
export const DROP_ORPHANS_SQL = `
DELETE FROM deliveries d WHERE d.id = ANY($1::uuid[])
  AND (NOT EXISTS (SELECT 1 FROM destinations t WHERE t.id = d.destination_id)
       OR NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = d.message_row_id))`;

/**
 * The batch's due deliveries. Only when some id did not load (done, not yet due, or orphaned) does a
 * second statement drop the orphans among them, so a full batch costs one round trip.
 */
export async function loadDueDeliveries(
  db: Pick<pg.Pool, "query">,
  ids: string[],
): Promise<{ deliveries: LoadedDelivery[]; orphansDropped: number }> {
  if (ids.length === 0) return { deliveries: [], orphansDropped: 0 };
  // Prepared once per connection, so Postgres plans it once rather than per batch
  // (docs/decisions/0011-delivery-batch-statements.md). The generic plan reads the batch by
  // primary key as the custom ones do (test/delivery-load.int.test.ts).
  const { rows } = await db.query<Row>({ name: "delivery-load", text: LOAD_DUE_SQL, values: [ids] });
  const destinations = new Map<string, LoadedDestination>();
  if (rows.length > 0) {
    const destinationIds = [...new Set(rows.map((r) => r.destination_id))];
    const { rows: settings } = await db.query<DestinationRow>({
      name: "delivery-destinations",
      text: DESTINATIONS_SQL,
      values: [destinationIds],
    });
    for (const t of settings) destinations.set(t.id, toDestination(t));
  }
  // A destination deleted between the two statements: its deliveries are orphans, dropped below.
  const deliveries: LoadedDelivery[] = [];
  for (const r of rows) {
    const destination = destinations.get(r.destination_id);
    if (destination) deliveries.push(toLoaded(r, destination));
  }
  if (deliveries.length === ids.length) return { deliveries, orphansDropped: 0 };
  const loaded = new Set(deliveries.map((d) => d.id));
  const missing = ids.filter((id) => !loaded.has(id));
  const dropped = await db.query(DROP_ORPHANS_SQL, [missing]);
  return { deliveries, orphansDropped: dropped.rowCount ?? 0 };
}

function toDestination(t: DestinationRow): LoadedDestination {
  // The stored settings read as the API and the capture page read them (lib/destinations/stored.ts).
  const stored = storedSettings({
    method: t.method,
    mapping: t.mapping,
    numbers: t.numbers,
    mode: t.mode,
    headers: t.headers,
    filter: t.filter,
    batch: t.batch,
    ordering: t.ordering,
    maxHoldMinutes: t.max_hold_minutes,
    rateLimitPerSecond: t.rate_limit_per_second,
    rateLimitConcurrency: t.rate_limit_concurrency,
  });
  const settings: Omit<LoadedDestination, "signing" | "shape" | "batch" | "rateLimit" | "ordering" | "auth" | "clientTls"> = {
    id: t.id,
    urls: t.urls,
    disabledUrls: t.disabled_urls,
    headers: stored.headers,
    sharedSecret: t.shared_secret,
    standardWebhooks: t.standard_webhooks,
    standardSecret: t.standard_secret,
    previousSharedSecret: t.previous_shared_secret,
    previousSharedSecretExpiresAt: t.previous_shared_secret_expires_at,
    previousStandardSecret: t.previous_standard_secret,
    previousStandardSecretExpiresAt: t.previous_standard_secret_expires_at,
    enabled: t.enabled,
    mode: stored.mode,
    retryWindowMinutes: t.retry_window_minutes,
    fieldLists: stored.fieldLists,
  };
  return {
    ...settings,
    signing: prepareSigning(settings),
    shape: prepareShape({ method: stored.method, mapping: stored.mapping, urls: t.urls, numbers: stored.numbers }),
    batch: stored.batch,
    rateLimit: stored.rateLimit,
    ordering: stored.ordering,
    auth: storedAuth(t.auth),
    clientTls: clientTlsOf(t),
  };
}

function clientTlsOf(t: DestinationRow): ClientTls | null {
  const settings = storedTls(t.tls);
  return settings && { destinationId: t.id, settings };
}

function toLoaded(r: Row, destination: LoadedDestination): LoadedDelivery {
  // One object literal, every field in it (plan filled in below): each delivery then has the same
  // shape, which the worker's per-delivery code reads fast; a spread copy of it cost ~1 µs a delivery
  // more, there and in every later read (docs/decisions/0020-bench-deliver-method.md).
  const d: LoadedDelivery = {
    id: r.id,
    workspaceId: r.workspace_id,
    messageRowId: r.message_row_id,
    destinationId: r.destination_id,
    pendingUrls: r.pending_urls,
    targetUrls: r.target_urls,
    test: r.test,
    rounds: r.attempt_count,
    firstAttemptAt: r.first_attempt_at,
    lastError: r.last_error,
    lastStatus: r.last_status,
    someUrlFailed: r.some_url_failed,
    erased: r.payload === null && r.type !== "delete",
    batchId: r.batch_id,
    contested: r.contested,
    orderKey: r.order_key,
    holdReleased: r.hold_released,
    message: new LoadedMessage(r),
    sendingBatch: undefined,
    destination,
    plan: UNPLANNED,
  };
  // What this job does with it, decided once (fate.ts): the steps after the load obey it.
  d.plan = planDelivery(d);
  return d;
}

/** The plan's place before planDelivery fills it: never read. */
const UNPLANNED: Plan = { go: "end", reason: "not planned yet", ordered: false, limited: false };

/**
 * The delivery's message, its payload parsed only when something reads it: the seed's body is
 * written from the text (lib/webhooks/payload-text.ts); a mapping or field lists parse it.
 */
class LoadedMessage implements StoredMessage {
  readonly type: string;
  readonly messageId: string;
  readonly userId: string | null;
  readonly anonymousId: string | null;
  readonly timestamp: string;
  readonly receivedAt: string;
  readonly sentAt: string | null;
  readonly payloadText: string | null;
  #parsed: Record<string, unknown> | null | undefined = undefined;
  constructor(r: Row) {
    this.type = r.type;
    this.messageId = r.message_id;
    this.userId = r.user_id;
    this.anonymousId = r.anonymous_id;
    this.timestamp = r.timestamp;
    this.receivedAt = r.received_at;
    this.sentAt = r.sent_at;
    this.payloadText = r.payload;
  }
  get payload(): Record<string, unknown> | null {
    if (this.#parsed === undefined)
      this.#parsed = this.payloadText === null ? null : (parseExactJson(this.payloadText).value as Record<string, unknown>);
    return this.#parsed;
  }
}
