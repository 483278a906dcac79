// The audit log (docs/management-api.md#audit-log): who changed what, field by field, written in the
// change's own transaction. Two Postgres triggers prove the transaction: one fails a destination
// change at COMMIT (after the audit row was written), one refuses the audit row itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteMember, login, PASSWORD, setupOwner, type SessionClient } from "./harness/members";
import { ADMIN_TOKEN, ApiClient, startStack, type Stack } from "./harness/stack";
import { openDb, type Db } from "./harness/tracking";

let stack: Stack;
let db: Db;
let owner: SessionClient;
let admin: SessionClient;
let destinationId: string;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  db = openDb(stack.databaseUrl);
  owner = await setupOwner(stack.app.url);
  admin = await inviteMember(owner, "admin@example.com", "admin");
  const dest = await admin.post("/api/destinations", {
    name: "orders",
    urls: ["http://127.0.0.1:9/a"],
    sourceIds: [],
    sharedSecret: "first-secret",
  });
  destinationId = dest.id;
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const eventsFor = async (resourceId: string) => (await owner.get(`/api/audit?resourceId=${resourceId}`)).events;

describe("the audit log", () => {
  it("records a destination change field by field, with who and from where, secrets only as changed", async () => {
    await admin.patch(`/api/destinations/${destinationId}`, {
      name: "orders v2",
      urls: ["http://127.0.0.1:9/b"],
      sharedSecret: "second-secret",
    });
    const [latest] = await eventsFor(destinationId);
    expect(latest).toMatchObject({
      action: "destination.update",
      resourceType: "destination",
      actor: { type: "user", label: "admin@example.com" },
      address: expect.stringMatching(/127\.0\.0\.1|::1/),
      changes: {
        name: { before: "orders", after: "orders v2" },
        urls: { before: ["http://127.0.0.1:9/a"], after: ["http://127.0.0.1:9/b"] },
        sharedSecret: { before: "changed", after: "changed" },
      },
    });
    expect(Object.keys(latest.changes).sort()).toEqual(["name", "sharedSecret", "urls"]);
    const all = JSON.stringify((await owner.get("/api/audit?limit=200")).events);
    expect(all).not.toContain("first-secret");
    expect(all).not.toContain("second-secret");
  });

  it("leaves no row when the change fails, even after the row was written (rolled back at COMMIT)", async () => {
    await db.query(`
      CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE CONSTRAINT TRIGGER fail_at_commit AFTER UPDATE ON destinations DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.name = 'fails at commit') EXECUTE FUNCTION refuse();`);
    const before = (await eventsFor(destinationId)).length;
    const res = await admin.request("PATCH", `/api/destinations/${destinationId}`, { name: "fails at commit" });
    expect(res.status).toBe(500);
    expect((await admin.get(`/api/destinations/${destinationId}`)).name).toBe("orders v2");
    expect(await eventsFor(destinationId)).toHaveLength(before);
  });

  it("keeps no change without its row: when the audit row cannot be written, the change is refused too", async () => {
    await db.query(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW
      WHEN (NEW.action = 'source.create') EXECUTE FUNCTION refuse()`);
    const res = await admin.request("POST", "/api/sources", { name: "unaudited" });
    expect(res.status).toBe(500);
    expect((await admin.get("/api/sources")).sources.map((s: { name: string }) => s.name)).not.toContain("unaudited");
  });

  it("records logins and failed logins, and filters by actor, resource, action and time with keyset paging", async () => {
    expect(
      (
        await fetch(`${stack.app.url}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "admin@example.com", password: "wrong password" }),
        })
      ).status,
    ).toBe(401);
    await login(stack.app.url, "admin@example.com", PASSWORD);
    const auth = (await owner.get("/api/audit?resource=session")).events.map(
      (e: { action: string; actor: { label: string } }) => `${e.action} ${e.actor.label}`,
    );
    expect(auth.slice(0, 2)).toEqual(["auth.login admin@example.com", "auth.login_failed admin@example.com"]);

    const byAdmin = (await owner.get("/api/audit?actor=admin@example.com&action=destination.")).events;
    expect(byAdmin.map((e: { action: string }) => e.action)).toEqual(["destination.update", "destination.create"]);

    const pages: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const page: { events: { id: string }[]; nextCursor: string | null } = await owner.get(
        `/api/audit?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      pages.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    const everything = (await owner.get("/api/audit?limit=200")).events.map((e: { id: string }) => e.id);
    expect(pages).toEqual(everything);
    expect(everything.length).toBeGreaterThan(4);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await owner.get(`/api/audit?from=${encodeURIComponent(future)}`)).events).toEqual([]);
    expect((await owner.request("GET", "/api/audit?from=yesterday")).status).toBe(422);
  });
  it("records the operator's POST /api/workspaces in the new workspace: the workspace and its first token, by the operator (issue 38)", async () => {
    const operator = new ApiClient(stack.app.url, ADMIN_TOKEN);
    const created = await operator.request("POST", "/api/workspaces", { name: "made by the operator" });
    expect(created.status).toBe(201);
    const ws = new ApiClient(stack.app.url, created.body.token, created.body.workspace.id);
    const { events } = await ws.get("/api/audit");
    const byOperator = { type: "operator", id: null, label: "operator token" };
    expect(events.map((e: any) => [e.action, e.resourceId, e.actor])).toEqual([
      ["token.create", expect.any(String), expect.objectContaining(byOperator)],
      ["workspace.create", created.body.workspace.id, expect.objectContaining(byOperator)],
    ]);
    expect(events.find((e: any) => e.action === "workspace.create").changes).toEqual({
      name: { before: null, after: "made by the operator" },
    });
    // The token's row names it, never its value.
    expect(JSON.stringify(events)).not.toContain(created.body.token);
  });
});
