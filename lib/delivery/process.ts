import "server-only";
import { batchPool } from "../platform/db";
import type pg from "pg";
import { deleteJob, insertJobs, sendJob, wakeWorkers } from "../platform/queue";
import { logger } from "../platform/logger";
import { observeDeliveryBatch } from "../metrics/delivery";
import { batching, releaseClaims, takeBatches } from "./batches";
import { claimRounds } from "./claims";
import { recordAsTheyEnd, settleWithin, trackLate } from "./detach";
import { DELIVERIES_PER_JOB } from "./enqueue";
import { loadDueDeliveries, type LoadedDelivery } from "./load";
import { BATCH_PATIENCE_MS, LATE_RECORD_GAP_MS, RETRY_LANE, SAFETY_DELAY_S, admitDeliveries, batchWaitPolicy } from "./policy";
import { roundUrls } from "./plan";
import { holdBehindEarlier, keysOf, lockKeys, releaseNext, type OrderKey } from "./order";
import { recordRound, type DeliveryUpdate } from "./record";
import { type Round, type SentRound, roundBody, sendRound, settleRound, throttledRound } from "./round";
import { logInterruptedSingles, type ResumedSingle } from "./interrupted";

export type BatchSummary = {
  loaded: number;
  /** deliveries whose destination or message was deleted meanwhile, dropped unsent (load.ts) */
  orphansDropped: number;
  /** ordered deliveries held behind an earlier one of their key, not sent (order.ts) */
  held: number;
  delivered: number;
  failed: number;
  retried: number;
  deferred: number;
  attempts: number;
  /** rounds still in flight after BATCH_PATIENCE_MS, recorded when they end (detach.ts) */
  late: number;
  /** of the late rounds, those let go because their origin's queue was too deep, none of its origins slow (policy.ts) */
  lateQueued: number;
  /** when the retry jobs this batch enqueued become due */
  dueTimes: Date[];
  /** ms spent loading, sending, recording */
  ms: { load: number; send: number; record: number };
};

/**
 * Delivers a batch of deliveries (the ids of one or more `deliver` jobs, or one test-send), every
 * send through the same round: prepare (one query loads them all; one more takes what the rate-limited
 * destinations allow, policy.ts admitDeliveries, and the rest wait for their turn), send (every URL POSTed
 * concurrently, capped per origin: round.ts sendRound), settle (what the answers mean: round.ts
 * settleRound), record (one statement for every attempt and delivery, in the same transaction as
 * the retry jobs when there are any). Rounds held up by a slow endpoint are recorded later, on
 * their own, so they do not hold the batch (detach.ts); `waitForAll` waits for every round instead
 * (a test-send, whose caller waits for its result). Throws only when the database fails, so pg-boss
 * retries the jobs (at-least-once).
 */
export async function processDeliveryBatch(opts: {
  deliveryIds: string[];
  onLateDue?: (due: Date[]) => void;
  waitForAll?: boolean;
  /** deliveries whose round an earlier run may have sent unrecorded (lanes.ts resumedDeliveries), by id: when their job was created */
  resumedSince?: ReadonlyMap<string, Date>;
}): Promise<BatchSummary> {
  const t0 = performance.now();
  const due = await loadDueDeliveries(batchPool(), [...new Set(opts.deliveryIds)]);
  const { orphansDropped } = due;
  // Ordered delivery (docs/webhooks.md#ordering): those with an earlier pending delivery of their key
  // are held, out of this round; no statement when none is ordered (order.ts).
  const held = await holdBehindEarlier(batchPool(), due.deliveries);
  const loaded = held.size > 0 ? due.deliveries.filter((d) => !held.has(d.id)) : due.deliveries;
  // Batching destinations' new deliveries join batches; the leads of batches due go, each as one round (batches.ts).
  const taken = batching(loaded) ? await takeBatches(batchPool(), loaded) : null;
  // One send per round (claims.ts): the rounds another job holds are not this job's to send.
  const lost = await claimRounds(batchPool(), taken ? taken.alone : loaded);
  const deliveries = (taken ? [...taken.alone, ...taken.batches] : loaded).filter((d) => !lost.has(d.id));
  const urls = deliveries.map((d) => roundUrls(d.targetUrls ?? d.destination.urls, d.pendingUrls));
  // A retried job's single deliveries whose round its earlier run may have sent are logged as
  // interrupted before they go again (interrupted.ts); a batch's round tells by its claim instead.
  if (opts.resumedSince) await logInterruptedSingles(batchPool(), resumedSingles(deliveries, urls, opts.resumedSince));
  // Rate limits (docs/webhooks.md#rate-limits): the deliveries held back wait for their turn, not sent.
  const admission = await admitDeliveries(deliveries);
  const t1 = performance.now();

  // The policy judges the origins before the rounds start, while their own requests are not in flight.
  const policy = batchWaitPolicy(urls);
  // A round holding a concurrency lease hands it, as its requests end, to the next delivery of its
  // destination waiting in this batch (policy.ts admitDeliveries).
  const send = (d: LoadedDelivery, i: number) =>
    admission.holds(d.id) ? sendRound(d, urls[i]).finally(() => admission.ended(d.id)) : sendRound(d, urls[i]);
  const waiting: boolean[] = [];
  const running = deliveries.map((d, i) => {
    const turn = admission.turns[i];
    if (turn === null) return send(d, i);
    if (typeof turn === "number") return Promise.resolve(throttledRound(d, urls[i], turn));
    waiting[i] = true;
    return turn.then((t) => (t === null ? send(d, i) : throttledRound(d, urls[i], t)));
  });
  // Rounds still waiting for a lease when the patience ends are let go: recorded as they end (detach.ts).
  const look = waiting.length === 0 ? policy.look : (over: boolean) => lettingGoWaiting(policy.look(over), over, waiting);
  const { done, late } = opts.waitForAll
    ? { done: await Promise.all(running), late: [] as number[] }
    : await settleWithin(running, BATCH_PATIENCE_MS, policy.unwaited, look);
  const rounds = done.map(settleRound);
  const t2 = performance.now();

  const lateIds = late.map((i) => deliveries[i].id);
  const { safetyJobId, dueTimes } = await commitRounds(rounds, { lateIds }).finally(() => admission.release(done.map((r) => r.d.id)));
  if (taken) dueTimes.push(...taken.dueTimes);
  const t3 = performance.now();
  // a batch's other members count under its lead's destination
  const destinationOf = new Map(deliveries.map((d) => [d.id, d.destinationId]));
  const observe = (rs: Round[]) =>
    observeDeliveryBatch(
      rs.flatMap((r) => r.attempts),
      rs.map((r) => r.update),
      (id) => destinationOf.get(id),
      membersOf(rs),
    );
  observe(rounds);
  if (late.length > 0)
    trackLate(
      recordLate(
        late.map((i) => running[i]),
        safetyJobId,
        (lateRounds, r) => {
          observe(lateRounds);
          void admission.release(lateRounds.map((x) => x.update.id));
          opts.onLateDue?.(r.dueTimes);
        },
        lateIds.length,
      ),
    );

  let delivered = 0;
  let failed = 0;
  let retried = 0;
  let deferred = 0;
  let attempts = 0;
  for (const r of rounds) {
    attempts += r.attempts.length;
    // a batch's round counts each of its events
    const n = 1 + (r.members?.length ?? 0);
    if (r.update.state === "delivered") delivered += n;
    else if (r.update.state === "failed") failed += n;
    else if (r.attempts.length > 0) retried += n;
    else deferred += n;
  }
  return {
    ms: { load: Math.round(t1 - t0), send: Math.round(t2 - t1), record: Math.round(t3 - t2) },
    loaded: deliveries.length,
    orphansDropped,
    held: held.size,
    delivered,
    failed,
    retried,
    deferred,
    late: late.length,
    lateQueued: late.filter(policy.letGoForQueue).length,
    attempts,
    dueTimes,
  };
}

/** The single deliveries of retried jobs among those about to be sent, with their rounds' URLs and bodies. */
function resumedSingles(deliveries: LoadedDelivery[], urls: string[][], since: ReadonlyMap<string, Date>): ResumedSingle[] {
  const singles: ResumedSingle[] = [];
  deliveries.forEach((d, i) => {
    const at = since.get(d.id);
    if (at && d.plan.go === "alone") singles.push({ delivery: d, urls: urls[i], body: roundBody(d, urls[i]).body, since: at });
  });
  return singles;
}

/** A look at a batch's rounds that also lets go, once the patience is over, those that waited for a concurrency lease. */
function lettingGoWaiting(judge: (i: number) => boolean, patienceOver: boolean, waiting: readonly boolean[]): (i: number) => boolean {
  return patienceOver ? (i) => waiting[i] === true || judge(i) : judge;
}

/**
 * Records the late rounds as they end, a group at most every LATE_RECORD_GAP_MS, each group in its
 * own transaction; the last one also deletes their safety job (detach.ts recordAsTheyEnd).
 */
function recordLate(
  running: Promise<SentRound>[],
  safetyJobId: string | null,
  onRecorded: (rounds: Round[], r: { dueTimes: Date[] }) => void,
  deliveries: number,
): Promise<void> {
  return recordAsTheyEnd(
    running,
    LATE_RECORD_GAP_MS,
    async (sent, { last, complete }) => {
      const rounds = sent.map(settleRound);
      const r = await commitRounds(rounds, { cancelJobId: last && complete ? safetyJobId : null });
      onRecorded(rounds, r);
    },
    (err) => logger().warn({ deliveries, safetyJobId, err: err.message }, "late deliveries not recorded; their safety job retries them"),
  );
}

/**
 * Records rounds in ONE statement, in one transaction with their retry jobs when there are any (on the
 * retry lane, policy.ts RETRY_LANE: never ahead of fresh deliveries), and
 * with the late deliveries' safety job (lateIds) or the deletion of the safety job they no longer
 * need (cancelJobId). Throws when the database fails, so pg-boss retries the jobs (at-least-once).
 */
async function commitRounds(
  rounds: Round[],
  opts: { lateIds?: string[]; cancelJobId?: string | null },
): Promise<{ safetyJobId: string | null; dueTimes: Date[] }> {
  const attempts = rounds.flatMap((r) => r.attempts);
  const updates = rounds.map((r) => r.update);
  const members = membersOf(rounds);
  // A batch's members wait on its lead: only the lead's retry gets a job (batches.ts).
  const retries = rounds.map((r) => r.update).filter((u) => u.state === "pending" && u.next_attempt_at);
  const dueTimes = [...new Set(retries.map((u) => u.next_attempt_at!))].map((t) => new Date(t));
  const lateIds = opts.lateIds ?? [];
  // A batch's round that sent nothing lets go of its claim when recorded (batches.ts releaseClaims).
  const unsent: string[] = [];
  for (const r of rounds) if (r.batchId && r.attempts.length === 0) unsent.push(r.batchId);
  // Ordered rounds that ended their delivery let the next of their key go, in this transaction (order.ts).
  const ended = rounds.filter((r) => r.order && r.update.state !== "pending");
  if (ended.length === 0 && retries.length === 0 && lateIds.length === 0 && !opts.cancelJobId) {
    await recordRound(batchPool(), attempts, updates, members);
    await releaseClaims(batchPool(), unsent);
    return { safetyJobId: null, dueTimes };
  }
  const client = await batchPool().connect();
  try {
    await client.query("BEGIN");
    // The keys' locks before the ends are written: a gate holding a later delivery of one of them
    // either committed its hold before (and is released below) or sees the end (order.ts).
    const keys = ended.length > 0 ? await endedKeys(client, ended) : [];
    await lockKeys(client, keys);
    await recordRound(client, attempts, updates, members);
    await releaseClaims(client, unsent);
    const released = await releaseNext(client, keys);
    if (retries.length > 0) await insertJobs(RETRY_LANE, retryJobs(retries), { client });
    let safetyJobId: string | null = null;
    if (lateIds.length > 0) {
      await client.query(
        `UPDATE deliveries SET next_attempt_at = now() + make_interval(secs => $2), updated_at = now() WHERE id = ANY($1::uuid[]) AND state = 'pending'`,
        [lateIds, SAFETY_DELAY_S],
      );
      safetyJobId = await sendJob(RETRY_LANE, { deliveryIds: lateIds, late: true }, { startAfter: SAFETY_DELAY_S, client });
    }
    if (opts.cancelJobId) await deleteJob(RETRY_LANE, opts.cancelJobId, { client });
    await client.query("COMMIT");
    if (released > 0) wakeWorkers("deliver");
    return { safetyJobId, dueTimes };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** The keys whose delivery these rounds end: each lead's, and the members' of the batches they sent (read from their rows). */
async function endedKeys(client: Pick<pg.PoolClient, "query">, ended: Round[]): Promise<OrderKey[]> {
  const keys: OrderKey[] = [];
  const memberIds: string[] = [];
  for (const r of ended) {
    if (r.order!.key !== null) keys.push({ destinationId: r.order!.destinationId, key: r.order!.key });
    if (r.order!.members && r.members) memberIds.push(...r.members);
  }
  if (memberIds.length > 0) keys.push(...(await keysOf(client, memberIds)));
  return keys;
}

/** A batch's other members by its lead's id, which they mirror; null when no round sent a batch. */
function membersOf(rounds: Round[]): Map<string, string[]> | null {
  const members = new Map<string, string[]>();
  for (const r of rounds) if (r.members && r.members.length > 0) members.set(r.update.id, r.members);
  return members.size > 0 ? members : null;
}

/** Retry jobs grouped by due second (next_attempt_at was rounded up to it), at most DELIVERIES_PER_JOB each. */
function retryJobs(retries: DeliveryUpdate[]) {
  const bySecond = new Map<string, string[]>();
  for (const u of retries) {
    const list = bySecond.get(u.next_attempt_at!) ?? [];
    list.push(u.id);
    bySecond.set(u.next_attempt_at!, list);
  }
  const jobs: { data: { deliveryIds: string[] }; startAfter: Date }[] = [];
  for (const [at, ids] of bySecond) {
    for (let i = 0; i < ids.length; i += DELIVERIES_PER_JOB)
      jobs.push({ data: { deliveryIds: ids.slice(i, i + DELIVERIES_PER_JOB) }, startAfter: new Date(at) });
  }
  return jobs;
}
