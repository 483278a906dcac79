import "server-only";
import type pg from "pg";
import { insertJobs, wakeWorkers } from "../platform/queue";
import { column } from "../platform/pg-arrays";
import { newRowId } from "../tracking/row-ids";
import { BATCH_BODY_LIMIT, batchBody } from "../webhooks/batching";
import { shapeRequest } from "../webhooks/request-shape";
import { enqueueDeliveryJobs } from "./enqueue";
import type { LoadedDelivery } from "./load";
import { RETRY_LANE } from "./policy";
import type { DeliveryUpdate } from "./record";

/**
 * Opt-in batching (docs/request-shape.md#batching), between the engine's load and its round. A
 * batching destination's new delivery does not go on its own: it joins its destination's open
 * batch in Postgres (membership is a column, deliveries.batch_id, so a worker killed meanwhile
 * loses nothing), with its own body, fixed then (deliveries.batch_part). A batch closes when it
 * holds `size` events, when adding the next would take its body past BATCH_BODY_LIMIT, or
 * `maxWaitMs` after it opened; its lead delivery's job then sends it through the same round as
 * every other request (round.ts), and every member mirrors the lead's state after each round.
 * A batch's body is built once and stored (delivery_batches.body): every retry sends those bytes.
 */

/** A batch being sent: what the round needs besides its lead delivery. */
export type SendingBatch = { id: string; body: string; memberIds: string[] };

/** What the engine does with a batch of loaded deliveries: those that go alone, and the batches to send now (their leads). */
export type Taken = { alone: LoadedDelivery[]; batches: LoadedDelivery[]; dueTimes: Date[] };

/** Standard Webhooks `webhook-id` of a batch: the same on every attempt of it (docs/request-shape.md#batch-signatures). */
export const batchWebhookId = (batchId: string) => `batch_${batchId}`;

/** Whether any of a batch's deliveries is a batching destination's or in a batch (the others skip takeBatches altogether). */
export function batching(deliveries: readonly LoadedDelivery[]): boolean {
  for (const d of deliveries) if (d.destination.batch || d.batchId) return true;
  return false;
}

/**
 * Splits loaded deliveries: those that go alone (a destination that does not batch, a test-send, an
 * erased message, a mapping that fails on this event: the round logs it), the new ones of batching
 * destinations, which join batches here, and the leads of batches due to be sent.
 */
export async function takeBatches(db: pg.Pool, deliveries: LoadedDelivery[]): Promise<Taken> {
  const alone: LoadedDelivery[] = [];
  const joining: Joining[] = [];
  const leads = new Map<string, LoadedDelivery>();
  for (const d of deliveries) {
    const dest = d.destination;
    // A batch already joined goes as a batch, even if its destination stopped batching since: its
    // members wait on its lead (a disabled destination fails them all in the lead's round).
    if (d.batchId) {
      leads.set(d.batchId, d);
      continue;
    }
    if (!dest.batch || d.test || d.targetUrls || d.erased || !dest.enabled || dest.urls.length === 0) {
      alone.push(d);
      continue;
    }
    const shaped = shapeRequest(dest.shape, d.message, dest.urls, dest.fieldLists);
    if (shaped.targets.some((t) => "error" in t)) alone.push(d);
    else joining.push({ d, part: shaped.body, bytes: Buffer.byteLength(shaped.body, "utf8") });
  }
  const dueTimes = joining.length > 0 ? await joinBatches(db, joining) : [];
  const batches = leads.size > 0 ? await batchesToSend(db, leads) : [];
  return { alone, batches, dueTimes };
}

type Joining = { d: LoadedDelivery; part: string; bytes: number };
type OpenBatch = { id: string; lead: string; events: number; bytes: number; closeAt: Date; isNew: boolean; closed: boolean };

/**
 * Adds new deliveries to their destinations' open batches, in one transaction; a replay that names
 * URLs (every mode) joins a batch for those URLs only. Closed batches' leads get a job now, new
 * open batches' leads one at their close time; returns when those fall due (the retry lane's wake-ups).
 */
async function joinBatches(db: pg.Pool, joining: Joining[]): Promise<Date[]> {
  const groups = new Map<string, Joining[]>();
  for (const j of joining) {
    const key = `${j.d.destinationId} ${j.d.pendingUrls?.join(" ") ?? ""}`;
    const g = groups.get(key) ?? [];
    g.push(j);
    groups.set(key, g);
  }
  // The same order in every worker, so two joining the same destinations never wait on each other in a cycle.
  const keys = [...groups.keys()].sort();
  const client = await db.connect();
  const closedLeads: string[] = [];
  const timers: { lead: string; at: Date }[] = [];
  try {
    await client.query("BEGIN");
    const members: { id: string; batchId: string; part: string; nextAt: Date | null }[] = [];
    const touched: OpenBatch[] = [];
    for (const key of keys) {
      const group = groups.get(key)!;
      const first = group[0].d;
      const settings = first.destination.batch!;
      const urls = first.pendingUrls && first.pendingUrls.length > 0 ? first.pendingUrls : null;
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`batch:${first.destinationId}`]);
      // FOR UPDATE: a lead's job closing this batch meanwhile (batchesToSend) waits for these members to commit.
      const { rows } = await client.query<{ id: string; lead_delivery_id: string; events: number; bytes: number; close_at: Date }>(
        `SELECT id, lead_delivery_id, events, bytes, close_at FROM delivery_batches
          WHERE destination_id = $1 AND state = 'open' AND urls IS NOT DISTINCT FROM $2::text[] ORDER BY opened_at LIMIT 1 FOR UPDATE`,
        [first.destinationId, urls],
      );
      let open: OpenBatch | null = rows[0]
        ? {
            id: rows[0].id,
            lead: rows[0].lead_delivery_id,
            events: rows[0].events,
            bytes: rows[0].bytes,
            closeAt: rows[0].close_at,
            isNew: false,
            closed: false,
          }
        : null;
      if (open) touched.push(open);
      for (const j of group) {
        // Closes early rather than pass the limit; an event over it alone still goes, in a batch of its own.
        if (open && (open.events >= settings.size || open.bytes + 1 + j.bytes > BATCH_BODY_LIMIT)) {
          open.closed = true;
          open = null;
        }
        if (!open) {
          open = {
            id: newRowId(),
            lead: j.d.id,
            events: 0,
            bytes: 2,
            closeAt: new Date(Date.now() + settings.maxWaitMs),
            isNew: true,
            closed: false,
          };
          touched.push(open);
        }
        open.bytes += j.bytes + (open.events > 0 ? 1 : 0);
        open.events++;
        members.push({ id: j.d.id, batchId: open.id, part: j.part, nextAt: open.closeAt });
      }
      if (open && (open.events >= settings.size || open.bytes >= BATCH_BODY_LIMIT)) open.closed = true;
      const created = touched.filter((b) => b.isNew);
      if (created.length > 0)
        await client.query(
          `INSERT INTO delivery_batches (id, workspace_id, destination_id, state, lead_delivery_id, urls, events, bytes, close_at)
         SELECT x.id, $1, $2, x.state, x.lead, $3::text[], x.events, x.bytes, x.close_at
           FROM unnest($4::uuid[], $5::text[], $6::uuid[], $7::int[], $8::int[], $9::timestamptz[]) AS x(id, state, lead, events, bytes, close_at)`,
          [
            first.workspaceId,
            first.destinationId,
            urls,
            ...columns(created, 6, (b) => [b.id, b.closed ? "closed" : "open", b.lead, b.events, b.bytes, b.closeAt]),
          ],
        );
      for (const b of touched.filter((t) => !t.isNew))
        await client.query("UPDATE delivery_batches SET events = $2, bytes = $3, state = $4 WHERE id = $1", [
          b.id,
          b.events,
          b.bytes,
          b.closed ? "closed" : "open",
        ]);
      for (const b of touched) {
        if (b.closed) closedLeads.push(b.lead);
        else if (b.isNew) timers.push({ lead: b.lead, at: b.closeAt });
      }
      touched.length = 0;
    }
    // A closed batch's lead is due now; the others wait for their batch (their next attempt shows its close time).
    const closed = new Set(closedLeads);
    for (const m of members) if (closed.has(m.id)) m.nextAt = null;
    // Each column one literal (pg-arrays.ts): the parts, JSON texts, joined by a separator rather
    // than escaped element by element into a text[] by node-pg and unescaped again by Postgres.
    await client.query({
      text: `UPDATE deliveries d SET batch_id = x.batch_id, batch_part = x.part, next_attempt_at = x.next_at, updated_at = now()
         FROM unnest($1::uuid[], $2::uuid[], string_to_array($3, E'\\x1e', ''), $4::timestamptz[]) AS x(id, batch_id, part, next_at)
        WHERE d.id = x.id AND d.id = ANY($1::uuid[]) AND d.state = 'pending'`,
      values: [
        column(members, (m) => m.id, "bare"),
        column(members, (m) => m.batchId, "bare"),
        column(members, (m) => m.part, "json"),
        column(members, (m) => m.nextAt?.toISOString() ?? null, "bare"),
      ],
    });
    await enqueueDeliveryJobs(client, closedLeads);
    if (timers.length > 0)
      await insertJobs(
        RETRY_LANE,
        timers.map((t) => ({ data: { deliveryIds: [t.lead] }, startAfter: t.at })),
        { client },
      );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (closedLeads.length > 0) wakeWorkers("deliver");
  return timers.map((t) => t.at);
}

/**
 * The batches whose lead's job came due: each is closed (a lead's job on an open batch is its close
 * time, or a resume or a deletion request handing it on), its body built from its pending members'
 * parts unless already stored, and stored before anything is sent, so every attempt sends the same
 * bytes. A member that is not its batch's lead does nothing here: its lead's job sends it.
 */
async function batchesToSend(db: pg.Pool, leads: Map<string, LoadedDelivery>): Promise<LoadedDelivery[]> {
  const { rows: batches } = await db.query<{ id: string; lead_delivery_id: string; body: string | null }>(
    `UPDATE delivery_batches SET state = 'closed' WHERE id = ANY($1::uuid[]) AND lead_delivery_id = ANY($2::uuid[])
     RETURNING id, lead_delivery_id, body`,
    [[...leads.keys()], [...leads.values()].map((d) => d.id)],
  );
  if (batches.length === 0) return [];
  // Members in the order they joined (time-ordered ids); parts only of batches not yet built.
  const { rows: members } = await db.query<{ id: string; batch_id: string; part: string | null }>(
    `SELECT d.id, d.batch_id, CASE WHEN b.body IS NULL THEN d.batch_part END AS part
       FROM deliveries d JOIN delivery_batches b ON b.id = d.batch_id
      WHERE d.batch_id = ANY($1::uuid[]) AND d.state = 'pending'
      ORDER BY d.id`,
    [batches.map((b) => b.id)],
  );
  const byBatch = new Map<string, { ids: string[]; parts: string[] }>();
  for (const m of members) {
    const e = byBatch.get(m.batch_id) ?? { ids: [], parts: [] };
    e.ids.push(m.id);
    if (m.part !== null) e.parts.push(m.part);
    byBatch.set(m.batch_id, e);
  }
  const out: LoadedDelivery[] = [];
  const built: { id: string; body: string; events: number }[] = [];
  for (const b of batches) {
    const lead = leads.get(b.id);
    const m = byBatch.get(b.id);
    if (!lead || lead.id !== b.lead_delivery_id || !m || !m.ids.includes(lead.id)) continue;
    let body = b.body;
    if (body === null) {
      body = batchBody(m.parts);
      built.push({ id: b.id, body, events: m.ids.length });
    }
    out.push({ ...lead, sendingBatch: { id: b.id, body, memberIds: m.ids } });
  }
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
 * A batch's round: its other members, which take its lead's update (record.ts recordRound, in the
 * same statement: one array of their ids, not a copy of the update per member). Others pass through.
 */
export function withMembers<R extends { update: DeliveryUpdate; members?: string[] }>(d: LoadedDelivery, round: R): R {
  const batch = d.sendingBatch;
  if (!batch) return round;
  const members: string[] = [];
  for (const id of batch.memberIds) if (id !== round.update.id) members.push(id);
  return { ...round, members };
}

/** `n` columns of rows as one array each, for unnest. */
function columns<T>(rows: readonly T[], n: number, row: (r: T) => unknown[]): unknown[][] {
  const cols: unknown[][] = Array.from({ length: n }, () => []);
  for (const r of rows) {
    const values = row(r);
    for (let i = 0; i < n; i++) cols[i].push(values[i]);
  }
  return cols;
}
