// URL templates under the SSRF guard (docs/request-shape.md#url-templates): the host of a templated
// URL is fixed at save, and the connection to each rendered URL is still checked, so a templated
// URL on a private address is refused like any other and the receiver sees nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRuntime } from "../lib/platform/runtime";
import { createTestDatabase } from "./harness/pg";
import { startWorker, waitFor, type Proc } from "./harness/stack";
import { insertDestination, insertWorkspace, withClient } from "./harness/delivery/direct";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { seedMessages } from "./harness/delivery/seed";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let worker: Proc;
let target: Receiver;
let workspaceId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  target = await startReceiver();
  worker = await startWorker(db.url, { EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "0" });
  workspaceId = await insertWorkspace(db.url);
});
afterAll(async () => {
  await worker?.stop();
  await closeRuntime();
  await target?.close();
  await db?.drop();
});

describe("SSRF guard on rendered URL templates", () => {
  it.each([
    ["a literal loopback IP", () => `http://127.0.0.1:${target.port}/users/{{userId}}`],
    ["a name resolving to loopback", () => `http://localhost:${target.port}/users/{{userId}}?e={{event}}`],
  ])("refuses %s after rendering: failed, not retried, nothing reaches the target", async (_what, url) => {
    const destinationId = await insertDestination(db.url, { workspaceId, urls: [url()] });
    await withClient(db.url, (c) =>
      c.query(`UPDATE destinations SET method = 'PUT', mapping = '{"@path": "$."}' WHERE id = $1`, [destinationId]),
    );
    const { rowIds } = await seedMessages(db.url, {
      workspaceId,
      destinationIds: [destinationId],
      messages: [{ type: "track", userId: "u 1", event: "E" }],
    });
    const r = await waitFor(
      () =>
        withClient(db.url, async (c) => {
          const d = (await c.query(`SELECT state, last_error FROM deliveries WHERE message_row_id = $1`, [rowIds[0]])).rows[0];
          if (d.state === "pending") return null;
          const attempts = (await c.query(`SELECT url, error_kind, outcome FROM attempts WHERE message_row_id = $1`, [rowIds[0]])).rows;
          return { ...d, attempts };
        }),
      { what: "delivery to settle" },
    );
    expect(r.state).toBe("failed");
    expect(r.last_error).toMatch(/private or reserved/);
    expect(r.attempts).toEqual([{ url: url(), error_kind: "ssrf", outcome: "failed" }]);
    expect(target.requests).toHaveLength(0);
  });
});
