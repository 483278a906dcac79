/**
 * Durability: a 200 means committed. With the database stopped the Tracking API answers 503 with
 * Retry-After and acknowledges nothing; after it restarts, what was accepted is intact.
 * Runs on an embedded Postgres of its own (the shared server is never stopped).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diskSizeOf, embeddedPostgresSettings, startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { ADMIN_TOKEN, ApiClient, startApp, waitFor, type Proc } from "./harness/stack";
import { createDestination, createSource, deliveryIdsInJobs, openDb, postTracking, type Db, type TestSource } from "./harness/tracking";

let dir: string;
let pg: EmbeddedDb | undefined;
let app: Proc & { url: string };
let db: Db;
let source: TestSource;

const batchOf = (prefix: string, n: number) => ({
  batch: Array.from({ length: n }, (_, i) => ({
    type: "track",
    userId: `dur-${i}`,
    event: "Paid",
    messageId: `${prefix}-${i}`,
    properties: { i },
  })),
});

async function storedIds(prefix: string): Promise<string[]> {
  const { rows } = await db.query<{ message_id: string }>("SELECT message_id FROM messages WHERE message_id LIKE $1 ORDER BY message_id", [
    `${prefix}-%`,
  ]);
  return rows.map((r) => r.message_id);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-durability-"));
  pg = await startEmbeddedPostgres(dir);
  await migrate(pg.url);
  app = await startApp(pg.url);
  const admin = new ApiClient(app.url, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "durable" });
  const api = new ApiClient(app.url, ws.token, ws.workspace.id);
  source = await createSource(api);
  db = openDb(pg.url);
  await createDestination(db, { workspaceId: source.workspaceId, name: "hook", sourceIds: [source.id] });
});
afterAll(async () => {
  await db?.end();
  await app?.stop();
  await pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the embedded Postgres", () => {
  it("runs with shared buffers sized to the machine and checkpoints spaced apart (docs/operations.md#database)", async () => {
    const { rows } = await db.query<{ name: string; value: string }>(
      `SELECT name, current_setting(name) AS value FROM pg_settings
       WHERE name IN ('shared_buffers', 'checkpoint_timeout', 'max_wal_size') ORDER BY name`,
    );
    const settings = embeddedPostgresSettings(os.totalmem(), diskSizeOf(dir));
    const mb = (name: string) => Number(settings.find((s) => s.startsWith(`${name}=`))!.slice(name.length + 1, -2));
    const shown = (n: number) => (n % 1024 === 0 ? `${n / 1024}GB` : `${n}MB`);
    expect(rows).toEqual([
      { name: "checkpoint_timeout", value: "15min" },
      { name: "max_wal_size", value: shown(mb("max_wal_size")) },
      { name: "shared_buffers", value: shown(mb("shared_buffers")) },
    ]);
  });
});

describe("with the database stopped and restarted", () => {
  it("answers 503 with Retry-After, acknowledges nothing, and keeps what was accepted", async () => {
    const before = await postTracking(app.url, "/v1/batch", batchOf("before", 50), { writeKey: source.writeKey });
    expect(before).toMatchObject({ status: 200, body: { success: true } });

    const url = pg!.url;
    await db.end();
    await pg!.stop();
    pg = undefined;

    // Every kind of call, with the key in the header (checked first) or in the body.
    const down = [
      await postTracking(app.url, "/v1/batch", batchOf("down-a", 20), { writeKey: source.writeKey }),
      await postTracking(app.url, "/v1/track", { userId: "u", event: "E", messageId: "down-b-0" }, { writeKey: source.writeKey }),
      await postTracking(app.url, "/v1/import", { ...batchOf("down-c", 5), writeKey: source.writeKey }),
    ];
    for (const res of down) {
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const error = { code: "unavailable", message: expect.stringMatching(/nothing was stored/) };
      expect(res.body).toEqual({ success: false, ...error, error });
    }

    pg = await startEmbeddedPostgres(dir);
    if (pg.url !== url) {
      // Another process took the port meanwhile (the machine is shared): point the app at the new one.
      await app.stop();
      app = await startApp(pg.url);
    }
    db = openDb(pg.url);
    // The app reconnects by itself; each attempt has its own ids, so any 200 must be stored and no 503 may be.
    const answered: { prefix: string; status: number }[] = [];
    let attempt = 0;
    await waitFor(
      async () => {
        const prefix = `after-${attempt++}`;
        const res = await postTracking(app.url, "/v1/batch", batchOf(prefix, 30), { writeKey: source.writeKey });
        answered.push({ prefix, status: res.status });
        if (res.status !== 200 && res.status !== 503) throw new Error(`unexpected ${res.status} ${JSON.stringify(res.body)}`);
        return res.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "the app to accept calls again" },
    );

    expect(await storedIds("before")).toHaveLength(50);
    for (const prefix of ["down-a", "down-b", "down-c"]) expect(await storedIds(prefix)).toEqual([]);
    for (const a of answered) expect(await storedIds(a.prefix)).toHaveLength(a.status === 200 ? 30 : 0);

    // The accepted messages' deliveries and their deliver jobs survived the restart with them.
    const { rows } = await db.query<{ id: string }>(
      "SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.message_id LIKE 'before-%'",
    );
    expect(rows).toHaveLength(50);
    const jobbed = await deliveryIdsInJobs(db);
    expect(rows.every((r) => jobbed.has(r.id))).toBe(true);
  });
});
