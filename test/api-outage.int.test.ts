// The Management API while its database is unreachable: 503 with Retry-After and code "unavailable"
// (docs/management-api.md#errors), never a 500 and never a 404, whichever credential asks; a malformed
// X-Eventrail-Workspace is still a 404. The outage is a TCP proxy between the app and the shared
// Postgres that refuses connections and drops the open ones (the shared server is never stopped).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, ApiClient, startApp, waitFor, type Proc } from "./harness/stack";
import { adminUrl, createTestDatabase } from "./harness/pg";

/** Forwards 127.0.0.1:<port> to Postgres until cut; restore() listens on the same port again. */
class PgProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** The outage: new connections are refused, open ones are reset. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgProxy;
let app: (Proc & { url: string }) | undefined;
let api: ApiClient;
let workspaceId: string;

/** GET /api/sources as the operator, naming the workspace or not. */
const asAdmin = (workspace?: string) =>
  fetch(`${app!.url}/api/sources`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(workspace ? { "x-eventrail-workspace": workspace } : {}) },
  });

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(adminUrl());
  proxy = new PgProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.listen();
  const proxied = new URL(db.url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  app = await startApp(proxied.href);
  const admin = new ApiClient(app.url, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "outage" });
  api = new ApiClient(app.url, ws.token, ws.workspace.id);
  workspaceId = ws.workspace.id;
});
afterAll(async () => {
  await app?.stop();
  await proxy?.cut();
  await db?.drop();
});

describe("the Management API with the database up", () => {
  it("answers 404 for a malformed or unknown X-Eventrail-Workspace, 200 for the workspace's id", async () => {
    for (const header of ["not-a-uuid", "00000000-0000-0000-0000-00000000000g", crypto.randomUUID()]) {
      const res = await asAdmin(header);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe("not_found");
    }
    expect((await asAdmin(workspaceId)).status).toBe(200);
  });
});

describe("the Management API with the database unreachable", () => {
  it("answers 503 + Retry-After with code unavailable (not 500, not 404), and 200 again once it is back", async () => {
    expect((await api.request("GET", "/api/sources")).status).toBe(200);
    await proxy.cut();

    const answers = [
      { who: "API token", res: await api.request("GET", "/api/sources") },
      { who: "API token, a write", res: await api.request("POST", "/api/sources", { name: "Web" }) },
      { who: "admin, oldest workspace", res: await toAnswer(asAdmin()) },
      { who: "admin, X-Eventrail-Workspace", res: await toAnswer(asAdmin(workspaceId)) },
    ];
    for (const { who, res } of answers) {
      expect({ who, status: res.status }).toEqual({ who, status: 503 });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.body).toEqual({ error: { code: "unavailable", message: expect.any(String) } });
    }
    // A malformed workspace id is not looked up at all: still a 404 during the outage.
    expect((await asAdmin("not-a-uuid")).status).toBe(404);

    await proxy.listen();
    await waitFor(async () => (await api.request("GET", "/api/sources")).status === 200, { what: "the API to answer 200 again" });
  });
});

async function toAnswer(response: Promise<Response>): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await response;
  return { status: res.status, headers: res.headers, body: await res.json() };
}
