import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";
import { count } from "./harness/deletions/seed";
import { startReceiver, type Receiver } from "./harness/deletions/receiver";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let db: pg.Pool;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.end();
  await stack?.stop();
});

async function track(writeKey: string, batch: object[]) {
  const res = await fetch(`${stack.app.url}/v1/batch`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ batch }),
  });
  expect(res.status).toBe(200);
}

const finished = (client: ApiClient, id: string) =>
  waitFor(
    async () => {
      const d = await client.get(`/api/deletions/${id}`);
      return d.status === "completed" || d.status === "failed" ? d : undefined;
    },
    { timeoutMs: 60_000, what: `deletion ${id} to finish` },
  );

describe("deletions API", () => {
  it("creates a request that the worker runs: the user is erased and one notice per affected source is sent", async () => {
    const web = await a.post("/api/sources", { name: "Web" });
    const backend = await a.post("/api/sources", { name: "Backend" });
    const rx = await startReceiver();
    receivers.push(rx);
    const hook = await a.post("/api/destinations", {
      name: "hook",
      urls: [rx.url],
      headers: [],
      enabled: true,
      sourceIds: [web.id, backend.id],
    });
    await track(web.writeKey, [
      { type: "track", userId: "carol", event: "A" },
      { type: "track", userId: "dave", event: "A" },
    ]);
    await track(backend.writeKey, [{ type: "identify", userId: "carol", traits: { plan: "pro" } }]);

    const created = await a.request("POST", "/api/deletions", { userIds: ["carol", "carol", "nobody"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userIds: ["carol", "nobody"], status: "pending", usersDone: 0 });

    const d = await finished(a, created.body.id);
    expect(d.status).toBe("completed");
    expect(d.affectedSources.map((x: { name: string }) => x.name).sort()).toEqual(["Backend", "Web"]);
    expect(d.users.map((u: { userId: string; notifications: number }) => [u.userId, u.notifications])).toEqual([
      ["carol", 2],
      ["nobody", 0],
    ]);
    expect(d.notifications).toHaveLength(2);
    for (const n of d.notifications) expect(n).toMatchObject({ userId: "carol", destination: { id: hook.id, name: "hook" } });
    expect(await count(db, "messages WHERE user_id = 'carol' AND origin <> 'deletion'")).toBe(0);
    expect(await count(db, "messages WHERE user_id = 'dave'")).toBe(1);

    // The source debugger tells erased calls and Eventrail's own delete notice apart from client calls.
    const { events } = await a.get(`/api/sources/${web.id}/events`);
    const notice = events.find((e: { type: string }) => e.type === "delete");
    expect(notice).toMatchObject({ accepted: true, origin: "deletion", deletionRequestId: d.id, erased: false });
    expect(notice.payload).toMatchObject({ type: "delete", userId: "carol" });
    const calls = events.filter((e: { origin: string }) => e.origin === "api");
    expect(calls.map((e: { erased: boolean; payload: unknown }) => [e.erased, e.payload === null]).sort()).toEqual([
      [false, false],
      [true, true],
    ]);
    expect(calls.find((e: { erased: boolean }) => !e.erased).payload).toMatchObject({ userId: "dave" });

    const list = await a.get("/api/deletions");
    expect(list.deletions[0]).toMatchObject({ id: d.id, status: "completed", affectedSourceCount: 2, notificationCount: 2 });
  });

  it("answers 422 with field errors on bad input, 400 on bad JSON, and stores nothing", async () => {
    const before = (await a.get("/api/deletions")).deletions.length;
    const empty = await a.request("POST", "/api/deletions", { userIds: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.error).toMatchObject({ code: "validation_failed", fields: { userIds: ["Name at least one userId"] } });
    const blank = await a.request("POST", "/api/deletions", { userIds: ["ok", " "] });
    expect(blank.body.error.fields).toEqual({ "userIds.1": ["A userId cannot be empty"] });
    const tooMany = await a.request("POST", "/api/deletions", { userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) });
    expect(tooMany.body.error.fields.userIds).toEqual(["At most 1000 userIds per request"]);
    expect((await a.request("POST", "/api/deletions", { userId: "x" })).status).toBe(422);
    const badJson = await fetch(`${stack.app.url}/api/deletions`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(badJson.status).toBe(400);
    expect((await a.get("/api/deletions")).deletions.length).toBe(before);
  });

  it("requires credentials and hides another workspace's requests", async () => {
    expect((await fetch(`${stack.app.url}/api/deletions`)).status).toBe(401);
    expect((await fetch(`${stack.app.url}/api/deletions`, { method: "POST", body: '{"userIds":["x"]}' })).status).toBe(401);
    const mine = await a.post("/api/deletions", { userIds: ["x"] });
    expect((await b.request("GET", `/api/deletions/${mine.id}`)).status).toBe(404);
    expect((await b.get("/api/deletions")).deletions.find((x: { id: string }) => x.id === mine.id)).toBeUndefined();
    expect((await a.request("GET", "/api/deletions/not-a-uuid")).status).toBe(404);
  });
});
