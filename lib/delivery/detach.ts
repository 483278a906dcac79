import "server-only";
/**
 * Late rounds (docs/webhooks.md#endpoint-isolation, docs/decisions/0014-batch-patience.md): a batch
 * waits at most its patience (policy.ts BATCH_PATIENCE_MS) for its rounds, so that a hanging URL's
 * 5 s timeout does not hold its worker slot while deliveries to healthy URLs queue behind it. The
 * rounds still in flight then are "late": the batch records the others and completes, and in the
 * same transaction gives the late deliveries a safety job (policy.ts SAFETY_DELAY_S later) and pushes their
 * next_attempt_at to it. As the late rounds end (within the attempt timeout plus the limiter's
 * longest wait), they are recorded on their own, in groups, with their retry jobs, and the safety
 * job is deleted with the last group: one live job per delivery. A worker that dies meanwhile
 * leaves the safety job, which attempts again the late deliveries not yet recorded (at-least-once).
 * Which rounds are let go, and when, is policy.ts batchWaitPolicy's call.
 */

/**
 * The values of the promises settled within `ms`, and the indexes of those still pending then.
 * Promises flagged in `unwaited` are not waited for: they count as done only if they already are
 * when the others have settled (or the patience ran out).
 *
 * With `slowNow`, the patience ends only the rounds it lets go: a round still in flight whose
 * origins are all healthy is only queued for a connection slot behind the worker's other traffic
 * to that origin, and letting its batch go would not make it end sooner, only fetch more work into
 * the same queue at the cost of a safety job and a second recording. Those are waited for, and
 * looked at again every `ms / 5`: one whose origin turns slow meanwhile is let go then.
 *
 * `slowNow` is asked during the patience too (every `ms / 10`, with `patienceOver` false), so a
 * round whose origin another batch has meanwhile found slow is let go at once rather than when this
 * batch's own patience ends. It is called once per look and returns that look's judge of each round.
 *
 * A look costs no new promise per round: each round's one settlement handler counts down the
 * rounds the current look waits for (docs/webhooks.md#delivery-cost).
 */
export async function settleWithin<T>(
  promises: Promise<T>[],
  ms: number,
  unwaited: readonly boolean[] = [],
  slowNow?: (patienceOver: boolean) => (i: number) => boolean,
): Promise<{ done: T[]; late: number[] }> {
  const n = promises.length;
  const values: T[] = new Array(n);
  const settled = new Uint8Array(n);
  /** the rounds the current look waits for, and how many of them have not settled yet */
  const held = new Uint8Array(n);
  let heldLeft = 0;
  /** a rejected round, rejecting the batch (the job is retried) once a look waits for it */
  const rejected = new Map<number, unknown>();
  let wake: ((err?: { cause: unknown }) => void) | null = null;
  for (let i = 0; i < n; i++)
    promises[i].then(
      (v) => {
        values[i] = v;
        settled[i] = 1;
        if (held[i] === 1) {
          held[i] = 0;
          if (--heldLeft === 0) wake?.();
        }
      },
      // A round that rejected after the patience (or was not waited for) is handled by the late path's own catch.
      (err: unknown) => {
        rejected.set(i, err);
        if (held[i] === 1) wake?.({ cause: err });
      },
    );
  let waitedMs = 0;
  for (;;) {
    const over = waitedMs >= ms;
    const slow = slowNow?.(over);
    heldLeft = 0;
    for (let i = 0; i < n; i++) {
      const h = !unwaited[i] && settled[i] === 0 && !(slow ? slow(i) : over);
      held[i] = h ? 1 : 0;
      if (!h) continue;
      if (rejected.has(i)) throw rejected.get(i);
      heldLeft++;
    }
    if (heldLeft === 0) break;
    const step = over ? ms / 5 : slowNow ? Math.min(ms / 10, ms - waitedMs) : ms;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, step);
      wake = (err) => {
        clearTimeout(timer);
        wake = null;
        if (err) reject(err.cause);
        else resolve();
      };
    });
    waitedMs += step;
  }
  held.fill(0);
  // Unwaited rounds that end without I/O (deferred, disabled destination) are done within a turn.
  if (unwaited.some(Boolean)) await new Promise((r) => setImmediate(r));
  const done: T[] = [];
  const late: number[] = [];
  for (let i = 0; i < n; i++) {
    if (settled[i] === 1) done.push(values[i]);
    else late.push(i);
  }
  return { done, late };
}

/**
 * Hands the values of `promises` to `record` in groups as they settle, rather than all at once when
 * the last one does: a late round that has ended is recorded within `gapMs` (the time between two
 * groups, so a batch's rounds ending one by one make a few recordings, not one each). A worker killed
 * while a batch's late rounds are still ending has then recorded those that ended more than `gapMs`
 * before, and only the rest are attempted again by their safety job, rather than every round of the
 * batch. `last` is true for the group that holds the last value;
 * `complete` says whether every promise fulfilled and every earlier group was recorded (a rejected
 * promise is not recorded: its safety job attempts it again). A group whose recording throws is
 * left to its safety job the same way; the later groups are still recorded.
 */
export async function recordAsTheyEnd<T>(
  promises: Promise<T>[],
  gapMs: number,
  record: (values: T[], state: { last: boolean; complete: boolean }) => Promise<void>,
  onFailure: (err: Error) => void,
): Promise<void> {
  const ended: T[] = [];
  let settled = 0;
  let complete = true;
  let wake: (() => void) | null = null;
  // Counted in the same callback as the value is kept, so a group never holds a value not yet counted.
  for (const p of promises)
    p.then(
      (v) => {
        ended.push(v);
        settled++;
        wake?.();
      },
      (err: Error) => {
        complete = false;
        onFailure(err);
        settled++;
        wake?.();
      },
    );
  let recorded = 0;
  while (recorded < promises.length) {
    if (settled === recorded) {
      await new Promise<void>((r) => (wake = r));
      wake = null;
      continue;
    }
    const group = ended.splice(0);
    recorded = settled;
    const last = recorded === promises.length;
    if (group.length > 0) {
      try {
        await record(group, { last, complete });
      } catch (err) {
        complete = false;
        onFailure(err as Error);
      }
    }
    if (!last) await new Promise((r) => setTimeout(r, gapMs));
  }
}

const inFlight = new Set<Promise<void>>();

/** Runs a late recording, tracked so that a graceful stop waits for it (drainLateRounds). */
export function trackLate(work: Promise<void>): void {
  const p = work.finally(() => inFlight.delete(p));
  inFlight.add(p);
}

export async function drainLateRounds(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}
