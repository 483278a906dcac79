// Postgres restarted mid-run (our own embedded Postgres, never the shared one): the worker rides it
// out and every message ends delivered. Duplicates are printed for the report.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRuntime } from "../lib/platform/runtime";
import { startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { freePort, startWorker, waitFor, type Proc } from "./harness/stack";
import { countDelivered, manyTracks, startCountingReceiver, type CountingReceiver } from "./harness/delivery/counting";
import { insertDestination, insertWorkspace } from "./harness/delivery/direct";
import { seedMessages } from "./harness/delivery/seed";

const N = 2_000;
let dir: string;
let pgServer: EmbeddedDb | undefined;
let worker: Proc | undefined;
let rx: CountingReceiver;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-pg-restart-"));
  // A port of its own (remembered in pg.port), so it never races another embedded Postgres for 54320.
  fs.writeFileSync(path.join(dir, "pg.port"), String(await freePort()));
  pgServer = await startEmbeddedPostgres(dir);
  await migrate(pgServer.url);
  process.env.DATABASE_URL = pgServer.url;
  rx = await startCountingReceiver(20);
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await closeRuntime();
  await rx?.close();
  await pgServer?.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("faults", () => {
  it("Postgres restarted mid-run: every message ends delivered", async () => {
    const url = pgServer!.url;
    const workspaceId = await insertWorkspace(url);
    const destinationId = await insertDestination(url, { workspaceId, urls: [`${rx.url}/hook`] });
    worker = await startWorker(url, { WORKER_CONCURRENCY: "8", EVENTRAIL_RETRY_BASE_MS: "1000" });
    const messages = manyTracks(N, "pg");
    await seedMessages(url, { workspaceId, destinationIds: [destinationId], messages });
    await waitFor(async () => rx.unique() >= 300, { timeoutMs: 60_000, what: "the run to be under way" });

    await pgServer!.stop();
    const atStop = rx.unique();
    // Requests already in flight complete while the database is down, so recording them fails:
    // the restart must not lose those deliveries (their jobs are retried once the heartbeat lapses,
    // or — for rounds that outlived their batch, lib/delivery/detach.ts — their safety job runs).
    await waitFor(async () => /deliver batch not recorded|late deliveries not recorded/.test(worker!.output()), {
      timeoutMs: 60_000,
      what: "the worker to hit the outage",
    });
    const beforeRestart = rx.unique();
    pgServer = await startEmbeddedPostgres(dir);
    expect(pgServer.url).toBe(url);

    await waitFor(async () => (await countDelivered(url, destinationId).catch(() => 0)) === N, {
      timeoutMs: 240_000,
      intervalMs: 1_000,
      what: "all messages delivered",
    });
    expect(rx.unique()).toBe(N);
    expect(worker.child.exitCode).toBeNull();
    console.log(
      `[faults] Postgres stopped after ${atStop}/${N} received, restarted after ${beforeRestart}: all ${N} delivered, ${rx.duplicates()} duplicate deliveries seen by the receiver`,
    );
  }, 360_000);
});
