import "server-only";
import type pg from "pg";
import { insertJobs, wakeWorkers } from "../platform/queue";
import { column, textArray } from "../platform/pg-arrays";
import { columns, statement } from "../platform/pg-columns";
import { newRowId } from "../tracking/row-ids";
import { batchBody, carve, fill, type Filled } from "../webhooks/batching";
import { enqueueDeliveryJobs } from "./enqueue";
import { type InterruptedRound, logInterruptedRounds } from "./interrupted";
import type { LoadedDelivery } from "./load";
import { RETRY_LANE, SAFETY_DELAY_S } from "./policy";
import type { DeliveryUpdate } from "./record";

/**
 * Opt-in batching (docs/request-shape.md#batching), between the engine's load and its round. A
 * batching destination's new delivery does not go on its own: it joins a batch in Postgres, with its
 * own body fixed then, as one narrow row of delivery_batch_members (the delivery's own row is not
 * written: docs/decisions/0102-batch-membership.md), so a worker killed meanwhile loses nothing.
 * The deliveries a worker took together that fill whole batches make batches of their own, closed
 * and built at once and sent by the same round that joined them; the rest join their destination's
 * open batch, which closes when it holds `size` events, when adding the next would take its body past
 * BATCH_BODY_LIMIT, or `maxWaitMs` after it opened, and its lead delivery's job then sends it. A
 * batch goes through the same round as every other request (round.ts), every member mirrors the
 * lead's state after each round, and its body is built once and stored (delivery_batches.body):
 * every retry sends those bytes. Each round of a batch is sent by the one job that claims it
 * (claimRounds, docs/request-shape.md#one-send-per-round), whichever of its lead's jobs comes first.
 */

/** A batch being sent: what the round needs besides its lead delivery. */
export type SendingBatch = { id: string; body: string; memberIds: string[] };

/** What the engine does with a batch of loaded deliveries: those that go alone, and the batches to send now (their leads). */
export type Taken = { alone: LoadedDelivery[]; batches: LoadedDelivery[]; dueTimes: Date[] };

/**
 * How long a claim on a batch's round holds unless its round is recorded first: the engine's safety
 * delay, past which a round still unrecorded is taken for lost (policy.ts SAFETY_DELAY_S).
 */
export const CLAIM_S = SAFETY_DELAY_S;

/** Standard Webhooks `webhook-id` of a batch: the same on every attempt of it (docs/request-shape.md#batch-signatures). */
export const batchWebhookId = (batchId: string) => `batch_${batchId}`;

/**
 * The advisory lock a deletion request holds alone while it takes its user's events out of batches
 * (batches-erase.ts), and every join shares: a join either commits before the erasure looks for
 * members, or starts after it and finds the erased deliveries cancelled.
 */
export const membersLock = (workspaceId: string) => `batch-members:${workspaceId}`;

/** Whether any of a batch's deliveries joins a batch or goes with one (the others skip takeBatches altogether). */
export function batching(deliveries: readonly LoadedDelivery[]): boolean {
  for (const d of deliveries) if (d.plan.go === "join" || d.plan.go === "batch") return true;
  return false;
}

/**
 * Splits loaded deliveries as their plans say (fate.ts planDelivery): those that go alone (or end,
 * which their round does), the new ones of batching destinations, which join batches here, and the
 * leads of batches due to be sent (those built by this join, and those whose lead's job came due).
 */
export async function takeBatches(db: pg.Pool, deliveries: LoadedDelivery[]): Promise<Taken> {
  const alone: LoadedDelivery[] = [];
  const joining: Joining[] = [];
  const joined = new Map<string, LoadedDelivery[]>();
  // The plan decides (fate.ts): a batch's delivery goes with its batch, a joiner joins with its part.
  for (const d of deliveries) {
    const plan = d.plan;
    if (plan.go === "batch") {
      const of = joined.get(d.batchId!);
      if (of) of.push(d);
      else joined.set(d.batchId!, [d]);
    } else if (plan.go === "join") joining.push({ d, part: plan.part, bytes: Buffer.byteLength(plan.part, "utf8") });
    else alone.push(d);
  }
  const join = joining.length > 0 ? await joinBatches(db, joining) : { sending: [], dueTimes: [] };
  const due = joined.size > 0 ? await batchesToSend(db, joined) : [];
  return { alone, batches: [...join.sending, ...due], dueTimes: join.dueTimes };
}

/** A batch the join writes, as its columns read it (JoinedBatch). */
export type BatchRow = Pick<
  JoinedBatch,
  "id" | "workspaceId" | "destinationId" | "closed" | "lead" | "urls" | "events" | "bytes" | "closeAt" | "body" | "leadRounds"
>;
/** A delivery joining a batch: its part, unless the batch is built now (its body then holds it). */
export type MemberRow = { id: string; batchId: string; part: string | null };

const state = (b: { closed: boolean }) => (b.closed ? "closed" : "open");
/** The join's new batches; one built now is claimed for its lead's rounds (`round`). */
const FRESH_COLUMNS = columns<BatchRow>()({
  id: ["uuid", (b) => b.id],
  workspace_id: ["uuid", (b) => b.workspaceId],
  destination_id: ["uuid", (b) => b.destinationId],
  state: ["text", state],
  lead: ["uuid", (b) => b.lead],
  urls: ["text", (b) => (b.urls ? textArray(b.urls) : null)],
  events: ["int", (b) => b.events],
  bytes: ["int", (b) => b.bytes],
  close_at: ["timestamptz", (b) => b.closeAt.toISOString()],
  body: ["json", (b) => b.body],
  round: ["int", (b) => b.leadRounds],
});
/** The open batches the join grows. */
const GROWN_COLUMNS = columns<BatchRow>()({
  id: ["uuid", (b) => b.id],
  events: ["int", (b) => b.events],
  bytes: ["int", (b) => b.bytes],
  state: ["text", state],
});
const MEMBER_COLUMNS = columns<MemberRow>()({
  id: ["uuid", (m) => m.id],
  batch_id: ["uuid", (m) => m.batchId],
  part: ["json", (m) => m.part],
});

/**
 * The join's one statement (tryJoin): the new batches, the open ones grown, the members, each column
 * one literal. A member is inserted only while its delivery is still pending: the count returned
 * falls short when a deletion request cancelled one since its load. A batch built now is claimed for
 * its lead's round now: the round that joined it sends it (claimRounds). Exported for its plan test
 * (test/batch-statements.int.test.ts).
 */
export const JOIN = statement(
  { fresh: FRESH_COLUMNS, grown: GROWN_COLUMNS, members: MEMBER_COLUMNS },
  ({ fresh, grown, members }) => `WITH fresh AS (
  INSERT INTO delivery_batches (id, workspace_id, destination_id, state, lead_delivery_id, urls, events, bytes, close_at, body, built_at,
                                claimed_round, claimed_until)
  SELECT x.id, x.workspace_id, x.destination_id, x.state, x.lead, x.urls::text[], x.events,
         CASE WHEN x.body IS NOT NULL THEN octet_length(x.body) ELSE x.bytes END, x.close_at, x.body,
         CASE WHEN x.body IS NOT NULL THEN now() END,
         CASE WHEN x.body IS NOT NULL THEN x.round END,
         CASE WHEN x.body IS NOT NULL THEN now() + make_interval(secs => ${CLAIM_S}) END
    FROM ${fresh.unnest("x")}
), grown AS (
  UPDATE delivery_batches b SET events = x.events, bytes = x.bytes, state = x.state
    FROM ${grown.unnest("x")}
   WHERE b.id = x.id AND b.id = ANY(${grown.param("id")})
), members AS (
  INSERT INTO delivery_batch_members (delivery_id, batch_id, part)
  SELECT x.id, x.batch_id, x.part
    FROM ${members.unnest("x")}
    JOIN deliveries d ON d.id = x.id
   WHERE d.id = ANY(${members.hiddenIds("id")}) AND d.state = 'pending'
  RETURNING 1
)
SELECT count(*)::int AS n FROM members`,
);

type Joining = { d: LoadedDelivery; part: string; bytes: number };

/** A batch this join writes: a new one (full and built, or open), or the open one it adds to. */
type JoinedBatch = {
  id: string;
  workspaceId: string;
  destinationId: string;
  urls: string[] | null;
  /** its lead's id; the lead itself when this join made the batch */
  lead: string;
  /** its lead's rounds so far (a new batch's; a batch built now is claimed for them) */
  leadRounds: number;
  events: number;
  bytes: number;
  closeAt: Date;
  isNew: boolean;
  closed: boolean;
  /** the body, for a batch this join made full: stored now and sent by this round */
  body: string | null;
  /** the deliveries joining it now */
  members: Joining[];
};

/**
 * Adds new deliveries to batches, in one transaction; a replay that names URLs (every mode) joins a
 * batch for those URLs only. Returns the leads of the batches it built (sent now, by the caller's
 * round) and when the jobs it enqueued for open batches' close times fall due (the retry lane's
 * wake-ups); an open batch it closed gets its lead's job now.
 */
async function joinBatches(db: pg.Pool, joining: Joining[]): Promise<{ sending: LoadedDelivery[]; dueTimes: Date[] }> {
  for (;;) {
    const joined = await tryJoin(db, joining);
    if (joined !== "stale") return joined;
    // A deletion request cancelled some of them since they were loaded: those do not join.
    const { rows } = await db.query<{ id: string }>("SELECT id FROM deliveries WHERE id = ANY($1::uuid[]) AND state = 'pending'", [
      joining.map((j) => j.d.id),
    ]);
    const pending = new Set(rows.map((r) => r.id));
    joining = joining.filter((j) => pending.has(j.d.id));
    if (joining.length === 0) return { sending: [], dueTimes: [] };
  }
}

async function tryJoin(db: pg.Pool, joining: Joining[]): Promise<{ sending: LoadedDelivery[]; dueTimes: Date[] } | "stale"> {
  const groups = new Map<string, Joining[]>();
  for (const j of joining) {
    const key = `${j.d.destinationId} ${j.d.pendingUrls?.join(" ") ?? ""}`;
    const g = groups.get(key);
    if (g) g.push(j);
    else groups.set(key, [j]);
  }
  const client = await db.connect();
  try {
    await client.query("BEGIN");
    const workspaces = [...new Set(joining.map((j) => j.d.workspaceId))].sort().map(membersLock);
    await client.query("SELECT pg_advisory_xact_lock_shared(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k", [workspaces]);
    const batches: JoinedBatch[] = [];
    // The same order in every worker, so two joining the same destinations never wait on each other in a cycle.
    for (const key of [...groups.keys()].sort()) {
      const group = groups.get(key)!;
      const { full, rest } = carve(group, group[0].d.destination.batch!.size);
      for (const b of full) batches.push(newBatch(b));
      if (rest.length > 0) batches.push(...(await joinOpenBatch(client, rest)));
    }
    // A batch built now keeps no parts: its stored body holds them, in its members' order, and an
    // erasure gives its pending members theirs back from it (batches-erase.ts); an open batch's members keep theirs.
    const members: MemberRow[] = batches.flatMap((b) =>
      b.members.map((j) => ({ id: j.d.id, batchId: b.id, part: b.body === null ? j.part : null })),
    );
    const fresh = batches.filter((b) => b.isNew);
    const grown = batches.filter((b) => !b.isNew);
    // One statement: the new batches, the open ones grown, the members, each column one literal
    // (pg-columns.ts; parts and bodies, JSON texts, joined by a separator rather than escaped into a
    // text[]). A member still pending only: one a deletion request cancelled since its load makes the
    // count fall short, and the join starts again without it.
    const { rows } = await client.query<{ n: number }>({ text: JOIN.text, values: JOIN.values({ fresh, grown, members }) });
    if (rows[0].n !== members.length) {
      await client.query("ROLLBACK");
      return "stale";
    }
    // An open batch this join closed is due now, on its lead's job; a new open one at its close time.
    await enqueueDeliveryJobs(
      client,
      grown.filter((b) => b.closed).map((b) => b.lead),
    );
    const timers = fresh.filter((b) => !b.closed);
    if (timers.length > 0)
      await insertJobs(
        RETRY_LANE,
        timers.map((b) => ({ data: { deliveryIds: [b.lead] }, startAfter: b.closeAt })),
        { client },
      );
    await client.query("COMMIT");
    if (grown.some((b) => b.closed)) wakeWorkers("deliver");
    const sending = fresh
      .filter((b) => b.body !== null)
      .map((b) => ({
        ...b.members[0].d,
        batchId: b.id,
        sendingBatch: { id: b.id, body: b.body!, memberIds: b.members.map((j) => j.d.id) },
      }));
    return { sending, dueTimes: timers.map((b) => b.closeAt) };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A batch this join makes: full (closed, its body built now) or open. Its members in the order of
 * their ids, the order every reader of a batch's members uses (MEMBERS_TO_SEND_SQL), so that the
 * n-th part of a body built now is its n-th member's (batches-erase.ts).
 */
function newBatch(b: Filled<Joining>): JoinedBatch {
  const members = [...b.members].sort(byDeliveryId);
  const first = members[0].d;
  return {
    id: newRowId(),
    workspaceId: first.workspaceId,
    destinationId: first.destinationId,
    urls: first.pendingUrls && first.pendingUrls.length > 0 ? first.pendingUrls : null,
    lead: first.id,
    leadRounds: first.rounds,
    events: b.events,
    bytes: b.bytes,
    closeAt: new Date(Date.now() + first.destination.batch!.maxWaitMs),
    isNew: true,
    closed: b.full,
    body: b.full ? batchBody(members.map((j) => j.part)) : null,
    members,
  };
}

/** Ids are lower-case uuid texts: compared as strings, they sort as Postgres sorts the uuids. */
const byDeliveryId = (a: Joining, b: Joining) => (a.d.id < b.d.id ? -1 : a.d.id > b.d.id ? 1 : 0);

/**
 * Deliveries, fewer than a batch, join their destination's open batch (for their URLs), under the
 * destination's lock: it closes if they fill it, and those left over open a new one.
 */
async function joinOpenBatch(client: pg.PoolClient, rest: Joining[]): Promise<JoinedBatch[]> {
  const first = rest[0].d;
  const urls = first.pendingUrls && first.pendingUrls.length > 0 ? first.pendingUrls : null;
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`batch:${first.destinationId}`]);
  // FOR UPDATE: a lead's job closing this batch meanwhile (batchesToSend) waits for these members to commit.
  const { rows } = await client.query<{ id: string; lead_delivery_id: string; events: number; bytes: number; close_at: Date }>(
    `SELECT id, lead_delivery_id, events, bytes, close_at FROM delivery_batches
      WHERE destination_id = $1 AND state = 'open' AND urls IS NOT DISTINCT FROM $2::text[] ORDER BY opened_at LIMIT 1 FOR UPDATE`,
    [first.destinationId, urls],
  );
  const open = rows[0];
  const filled = fill(rest, first.destination.batch!.size, open);
  if (!open) return filled.map(newBatch);
  // The first is the open batch grown (its body is built when its lead's job sends it); any after, new.
  const [grown, ...fresh] = filled;
  return [
    {
      id: open.id,
      workspaceId: first.workspaceId,
      destinationId: first.destinationId,
      urls,
      lead: open.lead_delivery_id,
      leadRounds: 0,
      events: grown.events,
      bytes: grown.bytes,
      closeAt: open.close_at,
      isNew: false,
      closed: grown.full,
      body: null,
      members: grown.members,
    },
    ...fresh.map(newBatch),
  ];
}

/**
 * The pending members of batches ($1) in the order of their ids, with their parts for those not yet
 * built ($2). Each member's state by its primary key (a correlated lookup), never a scan of
 * deliveries to join them. Exported for its plan test (test/batch-statements.int.test.ts).
 */
export const MEMBERS_TO_SEND_SQL = `
SELECT m.delivery_id AS id, m.batch_id, CASE WHEN m.batch_id = ANY($2::uuid[]) THEN m.part END AS part
  FROM delivery_batch_members m
 WHERE m.batch_id = ANY($1::uuid[]) AND (SELECT d.state FROM deliveries d WHERE d.id = m.delivery_id) = 'pending'
 ORDER BY m.batch_id, m.delivery_id`;

/**
 * The claim of batches' rounds ($1: batch ids, $2: deliveries of theirs, $3: their rounds as
 * loaded), in one statement (docs/request-shape.md#one-send-per-round,
 * docs/decisions/0106-batch-round-claims.md). A round is claimed, and its batch closed, only while
 * its lead is still pending at those rounds (its row locked, so a round being recorded meanwhile is
 * waited for and seen) and no other job holds a claim on that round that has not ended: of several
 * jobs of one lead that come due together (its batch filling, its close time, a crashed worker's
 * re-run), exactly one sends. Exported for its test (test/batch-claims.int.test.ts).
 */
export const CLAIM_SQL = `
WITH leads AS (
  SELECT x.id, x.lead, x.round, o.claimed_round AS claimed_before, o.claimed_until AS claimed_until_before
    FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS x(id, lead, round)
    JOIN delivery_batches o ON o.id = x.id AND o.lead_delivery_id = x.lead
    JOIN deliveries l ON l.id = x.lead
   WHERE l.id = ANY($2::uuid[]) AND l.state = 'pending' AND l.attempt_count = x.round
     FOR UPDATE OF l
)
UPDATE delivery_batches b SET state = 'closed', claimed_round = x.round, claimed_until = now() + make_interval(secs => ${CLAIM_S})
  FROM leads x
 WHERE b.id = x.id AND b.id = ANY($1::uuid[]) AND b.lead_delivery_id = x.lead
   AND (b.claimed_round IS DISTINCT FROM x.round OR b.claimed_until IS NULL OR b.claimed_until <= now())
-- A claim of this very round that ran out unrecorded: its claimer stopped mid-round (interrupted.ts)
RETURNING b.id, b.lead_delivery_id, b.body,
          CASE WHEN x.claimed_before = x.round AND x.claimed_until_before IS NOT NULL THEN x.claimed_until_before END AS interrupted_until`;

/**
 * The batches whose lead's job came due and whose round this job claims (CLAIM_SQL): each is closed
 * (a lead's job on an open batch is its close time, or a resume, a crash's re-run or a deletion
 * request handing it on), its body built from its pending members' parts unless already stored, and
 * stored before anything is sent, so every attempt sends the same bytes. A member that is not its
 * batch's lead does nothing here: its lead's job sends it.
 */
async function batchesToSend(db: pg.Pool, joined: Map<string, LoadedDelivery[]>): Promise<LoadedDelivery[]> {
  // Every delivery of theirs this job loaded: the statement keeps those that lead their batch.
  const candidates = [...joined.values()].flat();
  const { rows: batches } = await db.query<{ id: string; lead_delivery_id: string; body: string | null; interrupted_until: Date | null }>(
    CLAIM_SQL,
    [column(candidates, (d) => d.batchId, "bare"), column(candidates, (d) => d.id, "bare"), column(candidates, (d) => d.rounds, "bare")],
  );
  if (batches.length < joined.size) await comeBackAfterClaims(db, joined, candidates, batches);
  if (batches.length === 0) return [];
  // Members in the order of their ids (newBatch); parts only of batches not yet built.
  const unbuilt = batches.filter((b) => b.body === null).map((b) => b.id);
  const { rows: members } = await db.query<{ id: string; batch_id: string; part: string | null }>(MEMBERS_TO_SEND_SQL, [
    batches.map((b) => b.id),
    unbuilt,
  ]);
  const byBatch = new Map<string, { ids: string[]; parts: string[] }>();
  for (const m of members) {
    const e = byBatch.get(m.batch_id) ?? { ids: [], parts: [] };
    e.ids.push(m.id);
    if (m.part !== null) e.parts.push(m.part);
    byBatch.set(m.batch_id, e);
  }
  const out: LoadedDelivery[] = [];
  const interrupted: InterruptedRound[] = [];
  const built: { id: string; body: string; events: number }[] = [];
  for (const b of batches) {
    const lead = joined.get(b.id)?.find((d) => d.id === b.lead_delivery_id);
    const m = byBatch.get(b.id);
    if (!lead || !m?.ids.includes(lead.id)) continue;
    let body = b.body;
    if (body === null) {
      body = batchBody(m.parts);
      built.push({ id: b.id, body, events: m.ids.length });
    }
    out.push({ ...lead, sendingBatch: { id: b.id, body, memberIds: m.ids } });
    // A body stored before the claim ran out: the claimer had built it, so it may have sent it.
    if (b.interrupted_until && b.body !== null) interrupted.push({ lead, batchId: b.id, claimedUntil: b.interrupted_until });
  }
  // Rounds whose claimer stopped before recording them are logged before they are sent again (interrupted.ts).
  await logInterruptedRounds(db, interrupted);
  if (built.length > 0)
    // The bodies, JSON texts, joined by a separator (pg-arrays.ts), not escaped into a text[].
    await db.query(
      `UPDATE delivery_batches b SET body = x.body, events = x.events, bytes = octet_length(x.body), built_at = now()
         FROM unnest($1::uuid[], string_to_array($2, E'\\x1e', ''), $3::int[]) AS x(id, body, events) WHERE b.id = x.id AND b.id = ANY($1::uuid[])`,
      [column(built, (b) => b.id, "bare"), column(built, (b) => b.body, "json"), column(built, (b) => b.events, "bare")],
    );
  return out;
}

/**
 * Batches whose round this job did not claim because another job holds the claim: their lead gets a
 * job for when that claim ends, so a round whose worker died is still sent (a claim recorded before
 * then leaves that job nothing to do). Rare: every job of a lead but one finds nothing to claim.
 */
async function comeBackAfterClaims(
  db: pg.Pool,
  joined: Map<string, LoadedDelivery[]>,
  candidates: LoadedDelivery[],
  claimed: { id: string }[],
): Promise<void> {
  const taken = new Set(claimed.map((b) => b.id));
  const rest = [...joined.keys()].filter((id) => !taken.has(id));
  const { rows } = await db.query<{ lead: string; until: Date }>(
    `SELECT b.lead_delivery_id AS lead, b.claimed_until AS until FROM delivery_batches b
      WHERE b.id = ANY($1::uuid[]) AND b.lead_delivery_id = ANY($2::uuid[]) AND b.claimed_until > now()
        AND EXISTS (SELECT 1 FROM deliveries l WHERE l.id = b.lead_delivery_id AND l.state = 'pending')`,
    [rest, candidates.map((d) => d.id)],
  );
  if (rows.length === 0) return;
  const client = await db.connect();
  try {
    await insertJobs(
      RETRY_LANE,
      rows.map((r) => ({ data: { deliveryIds: [r.lead] }, startAfter: r.until })),
      { client },
    );
  } finally {
    client.release();
  }
}

/**
 * A batch's round: its batch and its other members, which take its lead's update (record.ts recordRound,
 * in the same statement: one array of their ids, not a copy of the update per member). Others pass through.
 */
export function withMembers<R extends { update: DeliveryUpdate; members?: string[]; batchId?: string }>(d: LoadedDelivery, round: R): R {
  const batch = d.sendingBatch;
  if (!batch) return round;
  const members: string[] = [];
  for (const id of batch.memberIds) if (id !== round.update.id) members.push(id);
  return { ...round, members, batchId: batch.id };
}

/**
 * Lets go of the claims on batches whose round ended with no request sent (held back by a rate
 * limit, deferred by its origin, ended unsent): its lead's next job claims the same round again
 * (docs/request-shape.md#one-send-per-round, docs/decisions/0106-batch-round-claims.md). A round
 * that sent moved its lead's rounds on, which no earlier claim matches.
 */
export async function releaseClaims(db: Pick<pg.PoolClient, "query">, batchIds: string[]): Promise<void> {
  if (batchIds.length === 0) return;
  await db.query("UPDATE delivery_batches SET claimed_until = NULL WHERE id = ANY($1::uuid[])", [batchIds]);
}
