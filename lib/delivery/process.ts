import "server-only";
import { env } from "../platform/env";
import { pool } from "../platform/db";
import { deleteJob, insertJobs, sendJob } from "../platform/queue";
import { processWide } from "../platform/runtime";
import { originOf, postWebhook, type TimedAttempt } from "../webhooks/post";
import { OriginLimiter } from "../webhooks/limiter";
import { classifyAttempt } from "../webhooks/outcome";
import { buildRequest, webhookIdOf, type OutgoingRequest } from "../webhooks/request";
import { shapeRequest, type Method, type Target } from "../webhooks/request-shape";
import { logger } from "../platform/logger";
import { observeDeliveryBatch } from "../metrics/delivery";
import { BATCH_PATIENCE_MS, LATE_RECORD_GAP_MS, SAFETY_DELAY_S, recordAsTheyEnd, settleWithin, trackLate } from "./detach";
import { toAttemptRow } from "./attempt-row";
import { DELIVERIES_PER_JOB } from "./enqueue";
import { loadDueDeliveries, type LoadedDelivery } from "./load";
import { decideRound, roundUrls, type UrlResult } from "./plan";
import { recordRound, type AttemptRow, type DeliveryUpdate } from "./record";

/** A request that cannot get a connection slot to its origin within this long is deferred, not queued. */
const MAX_SLOT_WAIT_MS = 3_000;
/** A deferred round comes back at its origin's pace (limiter.ts deferTurnMs), but never later than this. */
const MAX_DEFER_MS = 30_000;

/** One per process (runtime.ts), shared by every batch: the cap is per origin, not per batch. Memory only. */
const limiter = () => processWide("origin limiter", () => new OriginLimiter(env().WORKER_CONCURRENCY, MAX_SLOT_WAIT_MS));

export type BatchSummary = {
  loaded: number;
  /** deliveries whose destination or message was deleted meanwhile, dropped unsent (load.ts) */
  orphansDropped: number;
  delivered: number;
  failed: number;
  retried: number;
  deferred: number;
  attempts: number;
  /** rounds still in flight after BATCH_PATIENCE_MS, recorded when they end (detach.ts) */
  late: number;
  /** of the late rounds, those let go because their origin's queue was too deep, none of its origins slow (heldUp) */
  lateQueued: number;
  /** when the retry jobs this batch enqueued become due */
  dueTimes: Date[];
  /** ms spent loading, sending, recording */
  ms: { load: number; send: number; record: number };
};

/**
 * Delivers a batch of deliveries (the ids of one or more `deliver` jobs): one query loads them all,
 * every URL is POSTed concurrently (capped per origin), then one statement records every attempt
 * and delivery, in the same transaction as the retry jobs when there are any. Rounds held up by a
 * slow endpoint are recorded later, on their own, so they do not hold the batch (detach.ts). Throws
 * only when the database fails, so pg-boss retries the jobs (at-least-once).
 */
export async function processDeliveryBatch(opts: { deliveryIds: string[]; onLateDue?: (due: Date[]) => void }): Promise<BatchSummary> {
  const t0 = performance.now();
  const { deliveries, orphansDropped } = await loadDueDeliveries(pool(), [...new Set(opts.deliveryIds)]);
  const t1 = performance.now();
  // Judged before the rounds start (their own requests are not yet in flight): see detach.ts.
  const urls = deliveries.map((d) => roundUrls(d.destination.urls, d.pendingUrls));
  const slowAtStart = slowJudge();
  const unwaited = urls.map((us) => us.some(slowAtStart));
  const running = deliveries.map((d, i) => sendRound(d, urls[i]));
  // A round is let go as soon as an origin of its is found slow (by this batch or another), and after
  // the patience also when queued deeper than the limiter itself would wait for a slot
  // (MAX_SLOT_WAIT_MS): a busy, slower origin must not hold every batch slot of the worker while other
  // destinations' jobs wait (detach.ts). Each look judges each origin once, not once per round.
  const queuedTooDeep: boolean[] = [];
  const heldUp = (patienceOver: boolean) => {
    const slow = slowJudge();
    const deep = new Map<string, boolean>();
    const tooDeep = (u: string) => {
      const origin = originOf(u);
      let d = deep.get(origin);
      if (d === undefined) {
        d = limiter().backlogMs(origin) > MAX_SLOT_WAIT_MS;
        deep.set(origin, d);
      }
      return d;
    };
    return (i: number) => {
      queuedTooDeep[i] = false;
      if (urls[i].some(slow)) return true;
      if (!patienceOver) return false;
      queuedTooDeep[i] = urls[i].some(tooDeep);
      return queuedTooDeep[i];
    };
  };
  const { done: sent, late } = await settleWithin(running, BATCH_PATIENCE_MS, unwaited, heldUp);
  const rounds = sent.map(finishRound);
  const t2 = performance.now();

  const lateIds = late.map((i) => deliveries[i].id);
  const destinationOf = new Map(deliveries.map((d) => [d.id, d.destinationId]));
  const { safetyJobId, dueTimes } = await commitRounds(rounds, { lateIds });
  const t3 = performance.now();
  observeDeliveryBatch(
    rounds.flatMap((r) => r.attempts),
    rounds.map((r) => r.update),
    (id) => destinationOf.get(id),
  );
  if (late.length > 0) {
    // Recorded as they end, a group at most every LATE_RECORD_GAP_MS, each group in its own
    // transaction; the last one also deletes their safety job (detach.ts recordAsTheyEnd).
    trackLate(
      recordAsTheyEnd(
        late.map((i) => running[i]),
        LATE_RECORD_GAP_MS,
        async (lateSent, { last, complete }) => {
          const lateRounds = lateSent.map(finishRound);
          const r = await commitRounds(lateRounds, { cancelJobId: last && complete ? safetyJobId : null });
          observeDeliveryBatch(
            lateRounds.flatMap((x) => x.attempts),
            lateRounds.map((x) => x.update),
            (id) => destinationOf.get(id),
          );
          opts.onLateDue?.(r.dueTimes);
        },
        (err) =>
          logger().warn(
            { deliveries: lateIds.length, safetyJobId, err: err.message },
            "late deliveries not recorded; their safety job retries them",
          ),
      ),
    );
  }
  const updates = rounds.map((r) => r.update);
  return {
    ms: { load: Math.round(t1 - t0), send: Math.round(t2 - t1), record: Math.round(t3 - t2) },
    loaded: deliveries.length,
    orphansDropped,
    delivered: updates.filter((u) => u.state === "delivered").length,
    failed: updates.filter((u) => u.state === "failed").length,
    retried: rounds.filter((r) => r.update.state === "pending" && r.attempts.length > 0).length,
    deferred: rounds.filter((r) => r.update.state === "pending" && r.attempts.length === 0).length,
    late: late.length,
    lateQueued: late.filter((i) => queuedTooDeep[i]).length,
    attempts: rounds.reduce((n, r) => n + r.attempts.length, 0),
    dueTimes,
  };
}

/**
 * Records rounds in ONE statement, in one transaction with their retry jobs when there are any (on the
 * retry lane, queue.ts deliverRetry: never ahead of fresh deliveries), and
 * with the late deliveries' safety job (lateIds) or the deletion of the safety job they no longer
 * need (cancelJobId). Throws when the database fails, so pg-boss retries the jobs (at-least-once).
 */
async function commitRounds(
  rounds: Round[],
  opts: { lateIds?: string[]; cancelJobId?: string | null },
): Promise<{ safetyJobId: string | null; dueTimes: Date[] }> {
  const attempts = rounds.flatMap((r) => r.attempts);
  const updates = rounds.map((r) => r.update);
  const retries = updates.filter((u) => u.state === "pending" && u.next_attempt_at);
  const dueTimes = [...new Set(retries.map((u) => u.next_attempt_at!))].map((t) => new Date(t));
  const lateIds = opts.lateIds ?? [];
  if (retries.length === 0 && lateIds.length === 0 && !opts.cancelJobId) {
    await recordRound(pool(), attempts, updates);
    return { safetyJobId: null, dueTimes };
  }
  const client = await pool().connect();
  try {
    await client.query("BEGIN");
    await recordRound(client, attempts, updates);
    if (retries.length > 0) await insertJobs("deliverRetry", retryJobs(retries), { client });
    let safetyJobId: string | null = null;
    if (lateIds.length > 0) {
      await client.query(
        `UPDATE deliveries SET next_attempt_at = now() + make_interval(secs => $2), updated_at = now() WHERE id = ANY($1::uuid[]) AND state = 'pending'`,
        [lateIds, SAFETY_DELAY_S],
      );
      safetyJobId = await sendJob("deliverRetry", { deliveryIds: lateIds }, { startAfter: SAFETY_DELAY_S, client });
    }
    if (opts.cancelJobId) await deleteJob("deliverRetry", opts.cancelJobId, { client });
    await client.query("COMMIT");
    return { safetyJobId, dueTimes };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
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

type Round = { attempts: AttemptRow[]; update: DeliveryUpdate };

/** A round whose requests have ended, or that ended without any, for finishRound to judge and log. */
type SentRound = { d: LoadedDelivery; ended: Round } | { d: LoadedDelivery; startedAt: Date; request: OutgoingRequest; sent: UrlAttempt[] };

/**
 * The I/O of one round of a delivery to `urls` (roundUrls of its destination's and its pending
 * URLs): its request built and POSTed to each URL, nothing more. What the answers mean is worked
 * out by finishRound, for a batch's ended rounds in one loop rather than between two answers:
 * between them it cost the worker ~3.5 % more CPU per delivery (docs/webhooks.md#delivery-cost).
 */
async function sendRound(d: LoadedDelivery, urls: string[]): Promise<SentRound> {
  const startedAt = new Date();
  // A URL the endpoint alerts disabled gets nothing (docs/alerts.md#disabling): a delivery that waits
  // only on disabled URLs ends here, rather than being re-sent to the URLs that already took it.
  const pending = d.pendingUrls ?? [];
  const onlyDisabledLeft =
    d.destination.urls.length === 0 || (pending.length > 0 && pending.every((u) => d.destination.disabledUrls.includes(u)));
  if (!d.destination.enabled || d.erased || onlyDisabledLeft) {
    const why = d.erased
      ? "message was erased by a deletion request"
      : d.destination.enabled
        ? "the URLs it was for are disabled after failing for days"
        : "destination is disabled";
    return { d, ended: { attempts: [], update: finalUpdate(d, "failed", why) } };
  }
  // Request shape (docs/request-shape.md): the mapped body, the method, each URL's rendered template.
  const { body, targets } = shapeRequest(d.destination.shape, d.message, urls);
  const request = buildRequest(d.destination.signing, d.message, { now: startedAt, webhookId: webhookIdOf(d.messageRowId), body });
  const method = d.destination.shape.method;
  const sent =
    urls.length === 1
      ? [await attemptUrl(urls[0], request, targets[0], method)]
      : await Promise.all(urls.map((url, i) => attemptUrl(url, request, targets[i], method)));
  return { d, startedAt, request, sent };
}

/** A sent round's attempts as logged and its delivery's new state (plan.ts decideRound). Synchronous. */
function finishRound(r: SentRound): Round {
  if ("ended" in r) return r.ended;
  const { d, request, sent } = r;
  const firstAttemptAt = d.firstAttemptAt ?? r.startedAt;
  // The round ended with its last answer, not when its batch looks at it: a retry's backoff and
  // window, and a delivery's delivered_at, count from then.
  let endedAt = 0;
  for (const s of sent) if (s.attempt) endedAt = Math.max(endedAt, s.attempt.startedAt.getTime() + s.attempt.durationMs);
  const ended = endedAt > 0 ? new Date(endedAt) : new Date();
  const results: UrlResult[] = sent.map((s) => {
    if (!s.attempt) return { url: s.url, attempted: false, turnInMs: s.turnInMs };
    const classification = classifyAttempt(s.attempt.result);
    // A retry queues behind the requests its origin deferred, if any (limiter.ts retryTurnMs).
    const turnInMs = classification.outcome === "retry" ? limiter().retryTurnMs(originOf(s.url), MAX_DEFER_MS) : 0;
    return {
      url: s.url,
      attempted: true,
      classification,
      status: s.attempt.result.kind === "response" ? s.attempt.result.status : null,
      ...(turnInMs > 0 ? { turnInMs } : {}),
    };
  });
  const decision = decideRound({
    mode: d.destination.mode,
    results,
    someUrlFailedBefore: d.someUrlFailed,
    attemptCount: d.attemptCount,
    firstAttemptAt,
    now: ended,
    windowMinutes: d.destination.retryWindowMinutes,
    lastStatusBefore: d.lastStatus,
    lastErrorBefore: d.lastError,
    policy: { baseMs: env().EVENTRAIL_RETRY_BASE_MS, maxStepMs: env().EVENTRAIL_RETRY_MAX_MS },
  });
  const nextAt = decision.nextAttemptAt;
  const attemptNumber = d.attemptCount + 1;
  const attempts: AttemptRow[] = [];
  for (let i = 0; i < sent.length; i++) {
    const s = sent[i];
    const r = results[i];
    if (!s.attempt || !r.attempted) continue;
    attempts.push(
      toAttemptRow({
        workspaceId: d.workspaceId,
        deliveryId: d.id,
        destinationId: d.destinationId,
        messageRowId: d.messageRowId,
        message: d.message,
        url: s.url,
        attemptNumber,
        request,
        attempt: s.attempt,
        classification: r.classification,
        outcome: decision.loggedOutcome.get(s.url) ?? r.classification.outcome,
        nextRetryAt: nextAt,
      }),
    );
  }
  // ISO 8601 UTC strings order as their times do: the latest is the largest.
  let lastAttemptAt: string | null = null;
  for (const a of attempts) if (lastAttemptAt === null || a.started_at > lastAttemptAt) lastAttemptAt = a.started_at;
  return {
    attempts,
    update: {
      id: d.id,
      state: decision.state,
      pending_urls: decision.pendingUrls,
      attempt_count: decision.attempted ? attemptNumber : d.attemptCount,
      first_attempt_at: decision.attempted ? firstAttemptAt.toISOString() : (d.firstAttemptAt?.toISOString() ?? null),
      last_attempt_at: lastAttemptAt,
      next_attempt_at: nextAt?.toISOString() ?? null,
      last_error: decision.lastError,
      last_status: decision.lastStatus,
      delivered_at: decision.state === "delivered" ? ended.toISOString() : null,
    },
  };
}

function finalUpdate(d: LoadedDelivery, state: "failed", lastError: string): DeliveryUpdate {
  return {
    id: d.id,
    state,
    pending_urls: [],
    attempt_count: d.attemptCount,
    first_attempt_at: d.firstAttemptAt?.toISOString() ?? null,
    last_attempt_at: null,
    next_attempt_at: null,
    last_error: lastError,
    last_status: null,
    delivered_at: null,
  };
}

/** Whether a URL's origin is slow now (limiter.ts isSlow), each origin judged once per judge: a look at a batch's rounds. */
function slowJudge(): (url: string) => boolean {
  const judged = new Map<string, boolean>();
  return (url) => {
    const origin = originOf(url);
    let slow = judged.get(origin);
    if (slow === undefined) {
      slow = limiter().isSlow(origin, BATCH_PATIENCE_MS);
      judged.set(origin, slow);
    }
    return slow;
  };
}

type UrlAttempt = { url: string; attempt: TimedAttempt | null; turnInMs?: number };

/**
 * One URL's attempt. `url` is the destination's (a template's text, which the delivery's pending
 * URLs and the attempt log name); `target` is where it goes, or why it is not sent: an attempt
 * failed for good, logged with the reason, nothing on the wire (docs/request-shape.md#url-templates).
 */
async function attemptUrl(url: string, request: OutgoingRequest, target: Target, method: Method): Promise<UrlAttempt> {
  if ("error" in target) {
    return {
      url,
      attempt: { startedAt: new Date(), durationMs: 0, result: { kind: "error", errorKind: "internal", message: target.error } },
    };
  }
  const release = await limiter().acquire(originOf(url));
  if (!release) return { url, attempt: null, turnInMs: limiter().deferTurnMs(originOf(url), MAX_DEFER_MS) };
  let attempt: TimedAttempt | undefined;
  try {
    attempt = await postWebhook(target.sendTo, request, method);
    return { url, attempt };
  } finally {
    release(attempt?.durationMs);
  }
}
