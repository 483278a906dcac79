import "server-only";
import type pg from "pg";
import { pool, withTransaction } from "../platform/db";
import { wakeWorkers } from "../platform/queue";
import { updateProfiles, type ProfileInput } from "../audiences/profiles";
import { INGEST_DELIVERY_COLUMNS, ingestDeliveriesCte, ingestJobsCte, type IngestDelivery } from "../delivery/enqueue";
import { type ConnectedDestination, routeMessage } from "../routing/route-message";
import type { NormalisedMessage, Rejection } from "./normalise";
import { recordRejections } from "./source-calls";
import { newRowId } from "./row-ids";
import { ingestMessagesCte, INGEST_MESSAGE_COLUMNS } from "./produce";
import { scalars, statement, type Statement } from "../platform/pg-columns";
import type { TrackingSource } from "./write-key";
import { checkAgainstPlan, type PlanVerdict } from "./plan-check";

type Queryable = Pick<pg.PoolClient, "query">;

export type StoreResult = {
  inserted: number;
  duplicates: number;
  deliveries: number;
  /** the stored messages the tracking plan flagged or blocked, for the metrics */
  judged: { message: NormalisedMessage; verdict: PlanVerdict }[];
};

/**
 * The source the request was authenticated and routed with is no longer what the database says
 * (key rotated or gone, source disabled or deleted, routing changed): nothing was stored. The
 * caller authenticates and routes again from the database.
 */
export class StaleSourceError extends Error {
  constructor() {
    super("the source changed since it was cached");
  }
}

/** The request's own values in its statement: one each per call. */
type Call = { source: TrackingSource; receivedAt: string; count: number };
const CALL_COLUMNS = scalars<Call>()({
  workspace_id: ["uuid", (c) => c.source.workspaceId],
  source_id: ["uuid", (c) => c.source.id],
  received_at: ["timestamptz", (c) => c.receivedAt],
  /** how many messages it inserts at most: fewer inserted means duplicates, whose ids are then returned */
  count: ["int", (c) => c.count],
  routing_version: ["int", (c) => c.source.routingVersion],
  write_key: ["text", (c) => c.source.writeKey],
});
const STORE_INPUTS = { call: CALL_COLUMNS, messages: INGEST_MESSAGE_COLUMNS, deliveries: INGEST_DELIVERY_COLUMNS };

/**
 * One request's messages, deliveries and `deliver` jobs in ONE statement (docs/architecture.md#ingest-statement):
 * a single round trip, atomic without BEGIN/COMMIT, its parameters written from typed column lists
 * (lib/platform/pg-columns.ts). The messages are inserted by the producer's CTE (produce.ts
 * ingestMessagesCte). Exact dedupe: rows whose (source, messageId) exists are skipped and not
 * returned, so they are neither routed nor delivered again — routing is decided in Node for every
 * message beforehand, and only the pairs of inserted messages become deliveries.
 * Returns the counts, and the inserted ids only when some message was a duplicate. `jobsCte`: the
 * `deliver_jobs` CTE (enqueue.ts ingestJobsCte), which embeds pg-boss's insert for the queue's table.
 */
export function storeStatement(jobsCte: string): Statement<typeof STORE_INPUTS> {
  // `current`: the source as the request saw it (possibly from the write-key cache) is still what
  // the database says — the key names it, it is enabled, its routing is unchanged. One primary-key
  // probe, evaluated once (a one-time filter): when false, nothing is inserted.
  return statement(
    STORE_INPUTS,
    ({ call, messages, deliveries }) => `
  WITH current AS (
    SELECT EXISTS (SELECT 1 FROM sources s
                    WHERE s.id = ${call.param("source_id")} AND s.enabled AND s.routing_version = ${call.param("routing_version")}
                      AND (s.write_key = ${call.param("write_key")}
                           OR (s.previous_write_key = ${call.param("write_key")} AND s.previous_write_key_expires_at > now()))) AS ok
  ),
  ${ingestMessagesCte("(SELECT ok FROM current)", call, messages)},
  ${ingestDeliveriesCte({ insertedMessages: "new_messages", workspaceId: call.param("workspace_id"), deliveries })},
  ${jobsCte}
  SELECT (SELECT ok FROM current) AS current, n.inserted, (SELECT count(*) FROM new_deliveries)::int AS deliveries,
         CASE WHEN n.inserted < ${call.param("count")} THEN (SELECT coalesce(array_agg(id), '{}') FROM new_messages) END AS ids
    FROM (SELECT count(*)::int AS inserted FROM new_messages) n`,
  );
}

/** Built once per process (it embeds pg-boss's insert for the queue's table); a failed build is retried. */
let built: Promise<Statement<typeof STORE_INPUTS>> | null = null;
function storeSql(): Promise<Statement<typeof STORE_INPUTS>> {
  if (!built) {
    built = ingestJobsCte().then(storeStatement);
    built.catch(() => {
      built = null;
    });
  }
  return built;
}

/** The destinations among a source's that order per user, or null when none does. */
function orderingDestinations(destinations: readonly ConnectedDestination[]): Set<string> | null {
  const ordered = destinations.filter((d) => d.ordering === "perUser");
  return ordered.length > 0 ? new Set(ordered.map((d) => d.id)) : null;
}

/** A message's order key (docs/webhooks.md#ordering): its userId, else its anonymousId (an alias's is its new userId). */
const orderKeyOf = (m: NormalisedMessage): string | null => m.userId ?? m.anonymousId ?? null;

const toProfileInput = (m: NormalisedMessage): ProfileInput => ({
  type: m.type,
  userId: m.userId,
  anonymousId: m.anonymousId,
  previousId: (m.payload.previousId as string | undefined) ?? null,
  traits: (m.payload.traits as Record<string, unknown> | undefined) ?? null,
  timestamp: m.timestamp,
});

/**
 * Stores one request's outcome in one transaction: the new messages, their deliveries and
 * `deliver` jobs (routing decided here), profile updates, and the rejections for the debugger.
 * When this returns, all of it is committed; when it throws, none of it is. The source is
 * re-checked by the statement (StaleSourceError); a call with no message to insert stores through
 * no such check, so its caller must pass a source fresh from the database.
 */
export async function storeCall(opts: {
  source: TrackingSource;
  receivedAt: string;
  accepted: NormalisedMessage[];
  rejections: Rejection[];
}): Promise<StoreResult> {
  const { source, receivedAt, rejections } = opts;
  // Duplicates inside one batch: the first one wins, as it would across batches.
  const seen = new Set<string>();
  const unique = opts.accepted.filter((m) => {
    if (seen.has(m.messageId)) return false;
    seen.add(m.messageId);
    return true;
  });
  if (unique.length === 0 && rejections.length === 0) return { inserted: 0, duplicates: opts.accepted.length, deliveries: 0, judged: [] };

  // The plan of the source as this attempt sees it: a retry after StaleSourceError checks again.
  const verdicts = await checkAgainstPlan(source, unique);
  // Ids in the order the client sent the calls: time-ordered ids are the arrival order that ordered
  // delivery keeps (docs/webhooks.md#ordering), a batch's calls included.
  const arrived = unique.map((message, i) => ({ rowId: newRowId(), message, verdict: verdicts?.[i] ?? null }));
  // Inserted sorted by messageId: concurrent batches that share ids take their unique-index locks in
  // one order, so a client's retry racing its original cannot deadlock with it.
  const rows = [...arrived].sort((a, b) =>
    a.message.messageId < b.message.messageId ? -1 : a.message.messageId > b.message.messageId ? 1 : 0,
  );
  const deliveries: IngestDelivery[] = [];
  // Ordered delivery (docs/webhooks.md#ordering): a delivery to a destination that orders per user
  // carries its key; the others' is null.
  const ordered = orderingDestinations(source.destinations);
  for (const { rowId, message, verdict } of arrived) {
    // Blocked by the plan: stored and visible, not routed (docs/tracking-plans.md#modes).
    if (verdict?.blocked) continue;
    for (const destinationId of routeMessage(message, source.destinations)) {
      const orderKey = ordered?.has(destinationId) ? orderKeyOf(message) : null;
      deliveries.push({ id: newRowId(), messageRowId: rowId, destinationId, orderKey });
    }
  }
  const store = async (db: Queryable) => {
    if (rows.length === 0) return { inserted: [] as typeof rows, deliveries: 0 };
    const sql = await storeSql();
    const {
      rows: [r],
    } = await db.query<{ current: boolean; inserted: number; deliveries: number; ids: string[] | null }>({
      name: "tracking-store-call",
      text: sql.text,
      values: sql.values({ call: { source, receivedAt, count: rows.length }, messages: rows, deliveries }),
    });
    // Thrown inside the transaction of the other path, so that it rolls back too.
    if (!r.current) throw new StaleSourceError();
    if (r.ids === null) return { inserted: rows, deliveries: r.deliveries };
    const ids = new Set(r.ids);
    const inserted = rows.filter((x) => ids.has(x.rowId));
    return { inserted, deliveries: r.deliveries };
  };
  const result = (inserted: typeof rows, deliveries: number): StoreResult => ({
    inserted: inserted.length,
    duplicates: opts.accepted.length - inserted.length,
    deliveries,
    judged: verdicts ? inserted.flatMap((x) => (x.verdict ? [{ message: x.message, verdict: x.verdict }] : [])) : [],
  });

  // The common call (track, page, screen, group; nothing rejected) is that one statement alone.
  const profiled = rows.some((x) => x.message.type === "identify" || x.message.type === "alias");
  if (!profiled && rejections.length === 0) {
    const stored = await store(pool());
    if (stored.deliveries > 0) wakeWorkers("deliver");
    return result(stored.inserted, stored.deliveries);
  }
  const stored = await withTransaction(async (client) => {
    const stored = await store(client);
    if (stored.inserted.length > 0) {
      await updateProfiles(client, { workspaceId: source.workspaceId, messages: stored.inserted.map((x) => toProfileInput(x.message)) });
    }
    if (rejections.length > 0) await recordRejections(client, { sourceId: source.id, receivedAt, rejections });
    return stored;
  });
  if (stored.deliveries > 0) wakeWorkers("deliver");
  return result(stored.inserted, stored.deliveries);
}
