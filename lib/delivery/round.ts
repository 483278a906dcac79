import "server-only";
import { env } from "../platform/env";
import { isoTime } from "../platform/iso-time";
import { postWebhook, type TimedAttempt } from "../webhooks/post";
import type { OAuth2Settings } from "../webhooks/endpoint-auth";
import { type ClientTls, isCaptureUrl } from "../webhooks/dispatchers";
import { bearerToken, dropToken, withBearer } from "../webhooks/oauth2-tokens";
import { classifyAttempt } from "../webhooks/outcome";
import { buildRequest, webhookIdOf, type OutgoingRequest } from "../webhooks/request";
import { shapeRequest, type Method, type Target } from "../webhooks/request-shape";
import { toAttemptRow } from "./attempt-row";
import { batchWebhookId, withMembers } from "./batches";
import type { LoadedDelivery } from "./load";
import { acquireSlot, deferTurnMs, retryTurnMs } from "./policy";
import { endOf } from "./fate";
import { decideRound, type UrlResult } from "./plan";
import type { AttemptRow, DeliveryUpdate } from "./record";

/**
 * One round of one delivery, in two halves: sendRound does its I/O (the request built and POSTed to
 * each URL, each through its origin's slot), settleRound works out what the answers mean (plan.ts
 * decideRound) and the attempt rows to log. A batch settles its ended rounds in one loop, not
 * between two answers (docs/webhooks.md#delivery-cost).
 */

/**
 * A settled round: its attempts as logged and its delivery's new state; a batch's round also carries
 * its batch's id and its other members' ids (batches.ts), which take the same state, recorded with it
 * but never given jobs of their own.
 */
export type Round = { attempts: AttemptRow[]; update: DeliveryUpdate; members?: string[]; batchId?: string; order?: RoundOrder };

/**
 * An ordered round (docs/webhooks.md#ordering): when it ends its delivery, the next held delivery of
 * its key goes (order.ts releaseNext) — its lead's key, and when it sent a batch, its members' keys.
 */
export type RoundOrder = { destinationId: string; key: string | null; members: boolean };

/** The round's order facts, or none for a delivery that is not ordered (the round then costs nothing more). */
function ordered(d: LoadedDelivery, round: Round): Round {
  const members = d.sendingBatch !== undefined && (d.destination.ordering === "perUser" || d.orderKey !== null);
  if (d.orderKey === null && !members) return round;
  return { ...round, order: { destinationId: d.destinationId, key: d.orderKey, members } };
}

/** A round whose requests have ended, or that ended without any. */
export type SentRound =
  | { d: LoadedDelivery; ended: Round }
  | { d: LoadedDelivery; startedAt: Date; request: OutgoingRequest; sent: UrlAttempt[] };

/**
 * One URL of a sent round: its attempt, or null when its origin deferred it (to `turnInMs` from now);
 * `sentTo` where it went when that is not `url` (a rendered URL template).
 */
type UrlAttempt = { url: string; attempt: TimedAttempt | null; turnInMs?: number; sentTo?: string };

/** Sends a round of `d` to `urls` (plan.ts roundUrls of its URLs and its pending ones). */
export async function sendRound(d: LoadedDelivery, urls: string[]): Promise<SentRound> {
  const startedAt = new Date();
  // A URL the endpoint alerts disabled gets nothing (docs/alerts.md#disabling): a delivery that waits
  // only on disabled URLs ends here, rather than being re-sent to the URLs that already took it.
  const why = endOf(d.plan);
  if (why !== null) return { d, ended: { attempts: [], update: failedUpdate(d, why) } };
  const { body: sentBody, targets } = roundBody(d, urls);
  const webhookId = d.sendingBatch ? batchWebhookId(d.sendingBatch.id) : webhookIdOf(d.messageRowId);
  let request = buildRequest(d.destination.signing, d.message, { now: startedAt, webhookId, body: sentBody });
  const method = d.destination.shape.method;
  // Endpoint authentication (docs/endpoint-auth.md#oauth2): without a token nothing is sent, and each
  // URL's attempt ends with the token request's failure (`auth`, retried like a 5xx).
  let bearer: Bearer | null = null;
  const auth = d.destination.auth;
  if (auth) {
    const t0 = performance.now();
    const got = await bearerToken(d.destinationId, auth);
    if (!("token" in got)) {
      const result = { kind: "error", errorKind: got.errorKind, message: got.message } as const;
      const attempt = { startedAt, durationMs: Math.round(performance.now() - t0), result };
      return { d, startedAt, request, sent: urls.map((url) => ({ url, attempt })) };
    }
    bearer = { destinationId: d.destinationId, auth, token: got.token };
    request = withBearer(request, got.token);
  }
  const sent =
    urls.length === 1
      ? [await attemptUrl(urls[0], request, targets[0], method, bearer, d.destination.clientTls)]
      : await Promise.all(urls.map((url, i) => attemptUrl(url, request, targets[i], method, bearer, d.destination.clientTls)));
  return { d, startedAt, request, sent };
}

/**
 * The body a round of `d` sends to `urls`, and where each URL's request goes. Request shape
 * (docs/request-shape.md): the mapped body, each URL's rendered template; a batch's stored body as
 * built (docs/request-shape.md#batch-signatures). The same for every round of a delivery whose
 * destination is unchanged, so an interrupted round's is logged with it (interrupted.ts).
 */
export function roundBody(d: LoadedDelivery, urls: string[]): { body: string; targets: Target[] } {
  const batch = d.sendingBatch;
  if (batch) return { body: batch.body, targets: urls.map((u) => ({ sendTo: u })) };
  const { body, targets } = shapeRequest(d.destination.shape, d.message, urls, d.destination.fieldLists);
  // A test-send to a batching destination is a batch of one, the shape its receiver reads.
  return { body: d.test && d.destination.batch && body !== "" ? `[${body}]` : body, targets };
}

/** The token a round's requests carry, and whose it is. */
type Bearer = { destinationId: string; auth: OAuth2Settings; token: string };

/**
 * After a 401 to a bearer token: the token is dropped and the request sent once more with a fresh
 * one (docs/endpoint-auth.md#oauth2). The attempt is the second answer, timed from the first request.
 */
async function withFreshToken(
  first: TimedAttempt,
  sendTo: string,
  request: OutgoingRequest,
  method: Method,
  bearer: Bearer,
  clientTls: ClientTls | null,
) {
  dropToken(bearer.destinationId, bearer.token);
  const got = await bearerToken(bearer.destinationId, bearer.auth);
  const second =
    "token" in got
      ? await postWebhook(sendTo, withBearer(request, got.token), method, clientTls)
      : { result: { kind: "error", errorKind: got.errorKind, message: got.message } as const };
  return { startedAt: first.startedAt, durationMs: Date.now() - first.startedAt.getTime(), result: second.result };
}

/**
 * One URL's attempt. `url` is the destination's (a template's text, which the delivery's pending
 * URLs and the attempt log name); `target` is where it goes, or why it is not sent: an attempt
 * failed for good, logged with the reason, nothing on the wire (docs/request-shape.md#url-templates).
 */
async function attemptUrl(
  url: string,
  request: OutgoingRequest,
  target: Target,
  method: Method,
  bearer: Bearer | null,
  clientTls: ClientTls | null,
): Promise<UrlAttempt> {
  if ("error" in target) {
    return {
      url,
      attempt: { startedAt: new Date(), durationMs: 0, result: { kind: "error", errorKind: "internal", message: target.error } },
    };
  }
  const release = await acquireSlot(url);
  if (!release) return { url, attempt: null, turnInMs: deferTurnMs(url) };
  let attempt: TimedAttempt | undefined;
  // A capture URL of this server gets `Bearer ****`, never the token: the token request still ran (a
  // test-send there proves the credentials), but a capture URL stores what it gets (docs/endpoint-auth.md#request-log).
  const toCapture = bearer !== null && isCaptureUrl(new URL(target.sendTo));
  try {
    attempt = await postWebhook(target.sendTo, toCapture ? withBearer(request, "****") : request, method, clientTls);
    if (bearer && !toCapture && attempt.result.kind === "response" && attempt.result.status === 401)
      attempt = await withFreshToken(attempt, target.sendTo, request, method, bearer, clientTls);
    return target.sendTo === url ? { url, attempt } : { url, attempt, sentTo: target.sendTo };
  } finally {
    release(attempt?.durationMs);
  }
}

/**
 * A round its destination's rate limit held back (policy.ts admitDeliveries): every URL deferred to
 * `turnInMs` from now, as a request its origin deferred is. Not an attempt: its round count and first
 * attempt time stay as they were (docs/webhooks.md#rate-limits).
 */
export function throttledRound(d: LoadedDelivery, urls: string[], turnInMs: number): SentRound {
  const decision = decideRound({
    mode: d.destination.mode,
    results: urls.map((url) => ({ url, attempted: false, turnInMs })),
    someUrlFailedBefore: d.someUrlFailed,
    rounds: d.rounds,
    firstAttemptAt: d.firstAttemptAt ?? new Date(),
    now: new Date(),
    windowMinutes: d.destination.retryWindowMinutes,
    lastStatusBefore: d.lastStatus,
    lastErrorBefore: d.lastError,
    policy: { baseMs: env().EVENTRAIL_RETRY_BASE_MS, maxStepMs: env().EVENTRAIL_RETRY_MAX_MS },
  });
  const update: DeliveryUpdate = {
    id: d.id,
    state: "pending",
    pending_urls: decision.pendingUrls,
    attempt_count: d.rounds,
    first_attempt_at: d.firstAttemptAt?.toISOString() ?? null,
    last_attempt_at: null,
    next_attempt_at: decision.nextAttemptAt?.toISOString() ?? null,
    last_error: d.lastError,
    last_status: d.lastStatus,
    delivered_at: null,
  };
  return { d, ended: { attempts: [], update } };
}

/** A sent round's attempts as logged and its delivery's new state. Synchronous. */
export function settleRound(r: SentRound): Round {
  if ("ended" in r) return ordered(r.d, withMembers(r.d, r.ended));
  const { d, request, sent } = r;
  const firstAttemptAt = d.firstAttemptAt ?? r.startedAt;
  // The round ended with its last answer, not when its batch looks at it: a retry's backoff and
  // window, and a delivery's delivered_at, count from then.
  // Plain loops and objects built whole, not spread: this runs once per delivery (docs/decisions/0020-bench-deliver-method.md).
  let endedAt = 0;
  for (let i = 0; i < sent.length; i++) {
    const a = sent[i].attempt;
    if (a) endedAt = Math.max(endedAt, a.startedAt.getTime() + a.durationMs);
  }
  const ended = endedAt > 0 ? new Date(endedAt) : new Date();
  const results: UrlResult[] = new Array(sent.length);
  for (let i = 0; i < sent.length; i++) {
    const s = sent[i];
    if (!s.attempt) {
      results[i] = { url: s.url, attempted: false, turnInMs: s.turnInMs };
      continue;
    }
    const classification = classifyAttempt(s.attempt.result);
    const result: Extract<UrlResult, { attempted: true }> = {
      url: s.url,
      attempted: true,
      classification,
      status: s.attempt.result.kind === "response" ? s.attempt.result.status : null,
    };
    if (s.sentTo) result.sentTo = s.sentTo;
    // A retry queues behind the requests its origin deferred, if any (policy.ts retryTurnMs).
    const turnInMs = classification.outcome === "retry" ? retryTurnMs(s.url) : 0;
    if (turnInMs > 0) result.turnInMs = turnInMs;
    results[i] = result;
  }
  const decision = decideRound({
    mode: d.destination.mode,
    results,
    someUrlFailedBefore: d.someUrlFailed,
    rounds: d.rounds,
    firstAttemptAt,
    now: ended,
    windowMinutes: d.destination.retryWindowMinutes,
    lastStatusBefore: d.lastStatus,
    lastErrorBefore: d.lastError,
    policy: { baseMs: env().EVENTRAIL_RETRY_BASE_MS, maxStepMs: env().EVENTRAIL_RETRY_MAX_MS },
    retries: !d.test,
  });
  const nextAt = decision.nextAttemptAt;
  // Every request of a round shares its number in the attempt log (attempt_number).
  const roundNumber = d.rounds + 1;
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
        sentTo: s.sentTo,
        method: d.destination.shape.method,
        attemptNumber: roundNumber,
        request,
        attempt: s.attempt,
        classification: r.classification,
        outcome: decision.loggedOutcome.get(s.url) ?? r.classification.outcome,
        nextRetryAt: nextAt,
        batchId: d.sendingBatch?.id ?? null,
      }),
    );
  }
  // ISO 8601 UTC strings order as their times do: the latest is the largest.
  let lastAttemptAt: string | null = null;
  for (const a of attempts) if (lastAttemptAt === null || a.started_at > lastAttemptAt) lastAttemptAt = a.started_at;
  return ordered(
    d,
    withMembers(d, {
      attempts,
      update: {
        id: d.id,
        state: decision.state,
        pending_urls: decision.pendingUrls,
        attempt_count: decision.attempted ? roundNumber : d.rounds,
        first_attempt_at: decision.attempted ? isoTime(firstAttemptAt) : d.firstAttemptAt && isoTime(d.firstAttemptAt),
        last_attempt_at: lastAttemptAt,
        next_attempt_at: nextAt && isoTime(nextAt),
        last_error: decision.lastError,
        last_status: decision.lastStatus,
        delivered_at: decision.state === "delivered" ? isoTime(ended) : null,
      },
    }),
  );
}

function failedUpdate(d: LoadedDelivery, lastError: string): DeliveryUpdate {
  return {
    id: d.id,
    state: "failed",
    pending_urls: [],
    attempt_count: d.rounds,
    first_attempt_at: d.firstAttemptAt?.toISOString() ?? null,
    last_attempt_at: null,
    next_attempt_at: null,
    last_error: lastError,
    last_status: null,
    delivered_at: null,
  };
}
