// Outbound safety with private networks NOT allowed (the default): loopback targets are refused at
// connect time, by literal IP and by name, and the receiver sees nothing; the built-in capture URL
// on the server's own origin still works.
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
let ownServer: Receiver;
let workspaceId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  target = await startReceiver();
  // Stands in for this server's own /c/<id> capture receiver: the worker is told it runs on this port.
  ownServer = await startReceiver();
  worker = await startWorker(db.url, { EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "0", PORT: String(ownServer.port) });
  workspaceId = await insertWorkspace(db.url);
});
afterAll(async () => {
  await worker?.stop();
  await closeRuntime();
  await Promise.all([target?.close(), ownServer?.close()]);
  await db?.drop();
});

async function deliverOnce(url: string, auth?: Record<string, unknown>) {
  const destinationId = await insertDestination(db.url, { workspaceId, urls: [url] });
  if (auth) await withClient(db.url, (c) => c.query(`UPDATE destinations SET auth = $2 WHERE id = $1`, [destinationId, auth]));
  const { rowIds } = await seedMessages(db.url, {
    workspaceId,
    destinationIds: [destinationId],
    messages: [{ type: "track", userId: "u", event: "E" }],
  });
  return waitFor(
    () =>
      withClient(db.url, async (c) => {
        const d = (await c.query(`SELECT state, last_error, attempt_count FROM deliveries WHERE message_row_id = $1`, [rowIds[0]])).rows[0];
        if (d.state === "pending") return null;
        const attempts = (await c.query(`SELECT error_kind, outcome, response_status FROM attempts WHERE message_row_id = $1`, [rowIds[0]]))
          .rows;
        return { ...d, attempts };
      }),
    { what: `delivery to ${url} to settle` },
  );
}

describe("SSRF guard", () => {
  it.each([
    ["a literal loopback IP", () => `http://127.0.0.1:${target.port}/hook`],
    ["a name resolving to loopback", () => `http://localhost:${target.port}/hook`],
    ["the metadata address", () => "http://169.254.169.254/latest/meta-data/"],
    ["an IPv4-mapped IPv6 loopback", () => `http://[::ffff:127.0.0.1]:${target.port}/hook`],
  ])("refuses %s: failed, not retried, nothing reaches the target", async (_what, url) => {
    const r = await deliverOnce(url());
    expect(r.state).toBe("failed");
    expect(r.last_error).toMatch(/private or reserved/);
    expect(r.attempts).toEqual([{ error_kind: "ssrf", outcome: "failed", response_status: null }]);
    expect(target.requests).toHaveLength(0);
  });

  it("always allows the built-in capture URL on the server's own origin", async () => {
    const r = await deliverOnce(`http://127.0.0.1:${ownServer.port}/c/bin_123`);
    expect(r.state).toBe("delivered");
    expect(ownServer.requests.map((x) => x.path)).toEqual(["/c/bin_123"]);
    // …but only /c/: other paths on the same origin are ordinary private targets.
    const other = await deliverOnce(`http://127.0.0.1:${ownServer.port}/api/sources`);
    expect(other.state).toBe("failed");
    expect(ownServer.requests).toHaveLength(1);
  });

  it("refuses a token URL on a private address (docs/endpoint-auth.md#token-requests): failed, no token request, nothing sent", async () => {
    const captured = ownServer.requests.length;
    const r = await deliverOnce(`http://127.0.0.1:${ownServer.port}/c/bin_auth`, {
      type: "oauth2",
      tokenUrl: `http://127.0.0.1:${target.port}/token`,
      clientId: "eventrail",
      clientSecret: "s3cret-value-0123",
      scope: null,
      audience: null,
      method: "client_secret_basic",
    });
    expect(r.state).toBe("failed");
    expect(r.last_error).toMatch(/token request refused: .*private or reserved/);
    expect(r.attempts).toEqual([{ error_kind: "ssrf", outcome: "failed", response_status: null }]);
    expect(target.requests).toHaveLength(0);
    expect(ownServer.requests).toHaveLength(captured);
  });

  it("the refused target is reachable directly: the guard refused it, not the network", async () => {
    const res = await fetch(`http://127.0.0.1:${target.port}/direct`, { method: "POST", body: "{}" });
    expect(res.status).toBe(200);
  });
});
