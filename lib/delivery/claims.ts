import "server-only";
import type pg from "pg";
import { sendJob } from "../platform/queue";
import { hiddenIds } from "../platform/pg-arrays";
import { DELIVERIES_PER_JOB } from "./enqueue";
import { RETRY_LANE } from "./policy";

/**
 * How long a job's claim on a delivery's round holds (docs/webhooks.md#one-send-per-round): longer
 * than any round takes (each request ends within 5 s; a late round is recorded when it ends), so
 * only a claimer that died leaves one to run out.
 */
export const CLAIM_S = 60;

/**
 * One send per round: two jobs can hold the same delivery when a pending one is queued again while
 * an earlier job of it may still be queued — resuming a paused destination does that
 * (lib/destinations/pause.ts), and so does losing a claim (below). Such a delivery is marked
 * contested (`claimed_until` set; '-infinity' until someone claims it), and a job that loads a
 * contested delivery claims its round in one conditional update — still pending, still at the
 * round it loaded (attempt_count), no unexpired claim — and sends it only if it won. Recording the
 * round lets the claim go and keeps the mark (record.ts SET_FROM_UPDATE): each later round of a
 * contested delivery is claimed too, while the deliveries ingest, retries and replays make, which
 * one job holds at a time, never cost a claim. A delivery lost to a live claim gets
 * a job when that claim ends: if its claimer died, that job sends it; if not, the job finds it
 * recorded and does nothing. Exported for its test (test/delivery-claims.int.test.ts).
 */
export const CLAIM_SQL = `
UPDATE deliveries d SET claimed_until = now() + make_interval(secs => ${CLAIM_S})
  FROM unnest($1::uuid[], $2::int[]) AS c(id, rounds)
 WHERE d.id = c.id AND d.id = ANY(${hiddenIds(1)}) AND d.state = 'pending' AND d.attempt_count = c.rounds
   AND (d.claimed_until IS NULL OR d.claimed_until <= now())
RETURNING d.id`;

/** The mark a re-enqueue sets on the deliveries it queues again: contested, claimable at once. */
export const CONTESTED = "'-infinity'::timestamptz";

/**
 * Claims the rounds of the contested ones of `deliveries` (their ids and the rounds they were
 * loaded at); returns the ids another job holds.
 */
export async function claimRounds(
  db: Pick<pg.Pool, "query">,
  loaded: { id: string; rounds: number; contested: boolean }[],
): Promise<Set<string>> {
  const deliveries = loaded.filter((d) => d.contested);
  if (deliveries.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: "delivery-claim",
    text: CLAIM_SQL,
    values: [deliveries.map((d) => d.id), deliveries.map((d) => d.rounds)],
  });
  const won = new Set(rows.map((r) => r.id));
  const lost = new Set(deliveries.filter((d) => !won.has(d.id)).map((d) => d.id));
  if (lost.size > 0) {
    const ids = [...lost];
    for (let i = 0; i < ids.length; i += DELIVERIES_PER_JOB)
      await sendJob(RETRY_LANE, { deliveryIds: ids.slice(i, i + DELIVERIES_PER_JOB) }, { startAfter: CLAIM_S });
  }
  return lost;
}
