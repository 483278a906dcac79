// A single event's round interrupted by a killed worker (docs/webhooks.md#interrupted-rounds): the
// resend is logged after an attempt of kind `interrupted`, so a request the receiver got twice is two
// attempts in the log. Two ways a single's round is left unrecorded, both with a worker process really
// killed (SIGKILL), against a real Postgres, pg-boss and loopback receivers: killed while its job was
// running (pg-boss runs the job again once its heartbeat lapses), and killed after its job completed
// with the round still in flight (a late round: its safety job sends it again).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRuntime } from "../lib/platform/runtime";
import { createTestDatabase } from "./harness/pg";
import { startReceiver, type Receiver, type Reply } from "./harness/delivery/receiver";
import { insertDestination, insertWorkspace } from "./harness/delivery/direct";
import { seedMessages } from "./harness/delivery/seed";
import { startWorker, waitFor, type Proc } from "./harness/stack";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Pool;
let workspaceId: string;
const procs: Proc[] = [];
const receivers: Receiver[] = [];
const ENV = { EVENTRAIL_RETRY_BASE_MS: "200" };

beforeAll(async () => {
  db = await createTestDatabase();
  // read once by lib/platform/env on first use: seedMessages enqueues as ingest does
  process.env.DATABASE_URL = db.url;
  client = new pg.Pool({ connectionString: db.url, max: 2 });
  workspaceId = await insertWorkspace(db.url);
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await closeRuntime();
  await client?.end();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

/** A receiver that never answers its first request (calling `onFirst` as it arrives) and answers 200 to the others. */
async function hangingFirst(onFirst: () => void = () => {}): Promise<Receiver> {
  const rx = await startReceiver((_req, i): Reply => {
    if (i > 0) return { status: 200, body: "ok" };
    onFirst();
    return "hang";
  });
  receivers.push(rx);
  return rx;
}

type Logged = { attempt_number: number; error_kind: string | null; outcome: string; request_body: string | null };
const logOf = async (deliveryId: string) =>
  (
    await client.query<Logged>(
      "SELECT attempt_number, error_kind, outcome, request_body FROM attempts WHERE delivery_id = $1 ORDER BY started_at, id",
      [deliveryId],
    )
  ).rows;

const delivered = (deliveryId: string) => async () =>
  (await client.query<{ state: string }>("SELECT state FROM deliveries WHERE id = $1", [deliveryId])).rows[0].state === "delivered";

describe("a single delivery's round interrupted by a killed worker", () => {
  it("is logged as interrupted before its resend, whether the worker died during its job or after it, with the round in flight", async () => {
    const first = await startWorker(db.url, ENV);
    procs.push(first);

    // After the job: the request hangs, so the batch lets the round go late (docs/webhooks.md#endpoint-isolation),
    // records its safety job and completes the job; then the worker dies with the round in flight.
    const lateRx = await hangingFirst();
    const lateDest = await insertDestination(db.url, { workspaceId, urls: [`${lateRx.url}/late`] });
    const late = await seedMessages(db.url, {
      workspaceId,
      destinationIds: [lateDest],
      messages: [{ type: "track", messageId: "late-1", userId: "u1", event: "Order Completed" }],
    });
    const lateId = late.deliveryIds[0];
    await waitFor(
      async () =>
        (await client.query("SELECT 1 FROM deliveries WHERE id = $1 AND next_attempt_at IS NOT NULL AND attempt_count = 0", [lateId]))
          .rowCount === 1,
      { what: "the late round's safety job recorded" },
    );
    // The worker records the round's safety job, then completes its own job: wait for the completion
    // (a job left active or retrying instead would fail here).
    const jobStates = async () =>
      (
        await client.query<{ state: string }>("SELECT state FROM pgboss.job WHERE name = 'deliver' AND data->'deliveryIds' ? $1", [lateId])
      ).rows.map((j) => j.state);
    await waitFor(async () => (await jobStates()).join() !== "active", { what: "the late round's job no longer active" });
    expect(await jobStates()).toEqual(["completed"]);

    // During the job: killed the moment its request arrives, before the batch lets the round go
    // (200 ms for an origin that never answered), so nothing of it is recorded and pg-boss runs the job again.
    const duringRx = await hangingFirst(() => first.child.kill("SIGKILL"));
    const duringDest = await insertDestination(db.url, { workspaceId, urls: [`${duringRx.url}/during`] });
    const during = await seedMessages(db.url, {
      workspaceId,
      destinationIds: [duringDest],
      messages: [{ type: "track", messageId: "during-1", userId: "u2", event: "Order Completed" }],
    });
    const duringId = during.deliveryIds[0];
    await waitFor(async () => duringRx.requests.length === 1, { what: "the request the worker dies sending" });
    await first.kill("SIGKILL");
    expect(duringRx.requests).toHaveLength(1);
    expect(lateRx.requests).toHaveLength(1);
    const { rows: untouched } = await client.query<{ touched: boolean }>(
      "SELECT updated_at > created_at AS touched FROM deliveries WHERE id = $1",
      [duringId],
    );
    expect(untouched).toEqual([{ touched: false }]);

    procs.push(await startWorker(db.url, ENV));
    await waitFor(delivered(duringId), { timeoutMs: 90_000, intervalMs: 250, what: "the killed job's delivery resent" });
    await waitFor(delivered(lateId), { timeoutMs: 90_000, intervalMs: 250, what: "the late round resent by its safety job" });
    // The killed job was run again by pg-boss (its retry count), not by a job of another kind.
    const { rows: retried } = await client.query<{ retry_count: number }>(
      "SELECT retry_count FROM pgboss.job WHERE name = 'deliver' AND data->'deliveryIds' ? $1",
      [duringId],
    );
    expect(retried.map((j) => j.retry_count)).toEqual([1]);

    for (const [id, rx] of [
      [duringId, duringRx],
      [lateId, lateRx],
    ] as const) {
      // Received twice, logged twice: the interrupted round (same round number, the body it sent,
      // no answer), then the answered resend; the same bytes both times.
      expect(rx.requests).toHaveLength(2);
      expect(rx.requests[1].body).toBe(rx.requests[0].body);
      const logged = await logOf(id);
      expect(logged.map((a) => [a.attempt_number, a.error_kind, a.outcome])).toEqual([
        [1, "interrupted", "retry"],
        [1, null, "success"],
      ]);
      expect(logged.map((a) => a.request_body)).toEqual([rx.requests[0].body, rx.requests[1].body]);
    }
  }, 150_000);
});
