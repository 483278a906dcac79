// The audiences Management API against `next start` and a worker: CRUD, validation, workspace
// isolation, the builder's preview, members search, and "Sync now" run by the worker.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let sourceId: string;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  const source = await a.post("/api/sources", { name: "Web" });
  sourceId = source.id;
  // Profiles fed through the Tracking API.
  const res = await fetch(`${stack.app.url}/v1/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      writeKey: source.writeKey,
      batch: [
        { type: "identify", userId: "user-1", traits: { plan: "pro", email: "ann@example.com" } },
        { type: "identify", userId: "user-2", traits: { plan: "pro", email: "bob@example.com" } },
        { type: "identify", userId: "user-3", traits: { plan: "free", email: "cat@example.com" } },
        { type: "track", userId: "user-3", event: "Order Completed", properties: { total: 250 } },
        { type: "track", userId: "user-3", event: "Order Completed", properties: { total: 300 } },
      ],
    }),
  });
  expect(res.status).toBe(200);
});
afterAll(() => stack?.stop());

const condition = {
  any: [
    { trait: "plan", op: "equals", value: "pro" },
    { event: "Order Completed", atLeast: 2, withinDays: 30 },
  ],
};

const completedSyncs = async (client: ApiClient, id: string, n: number) =>
  waitFor(
    async () => {
      const { syncs } = await client.get(`/api/audiences/${id}/syncs`);
      return syncs.filter((s: { status: string }) => s.status === "completed").length >= n && syncs;
    },
    { timeoutMs: 60_000, what: `${n} completed syncs` },
  );

describe("audiences API", () => {
  it("previews, creates (queueing the first sync), lists with size and last sync, and shows members", async () => {
    expect(await a.post("/api/audiences/preview", { condition, sourceIds: [sourceId] })).toEqual({ count: 3 });
    expect(
      await a.post("/api/audiences/preview", { condition: { trait: "plan", op: "equals", value: "free" }, sourceIds: [sourceId] }),
    ).toEqual({ count: 1 });

    const created = await a.post("/api/audiences", { name: "Big Spenders", sourceIds: [sourceId], condition });
    expect(created).toMatchObject({
      name: "Big Spenders",
      propertyName: "big_spenders",
      sourceIds: [sourceId],
      destinationIds: [],
      scheduleMinutes: null,
    });
    // The first sync was queued with the audience; the worker may pick it up before the answer is read.
    expect(created.lastSync).toMatchObject({ trigger: "created" });
    expect(["queued", "running", "completed"]).toContain(created.lastSync.status);

    const [sync] = await completedSyncs(a, created.id, 1);
    expect(sync).toMatchObject({ id: created.lastSync.id, status: "completed", initial: true, entered: 3, exited: 0, size: 3, sent: 0 });

    const { audiences } = await a.get("/api/audiences");
    expect(audiences.find((x: { id: string }) => x.id === created.id)).toMatchObject({ size: 3, lastSync: { status: "completed" } });

    const all = await a.get(`/api/audiences/${created.id}/members`);
    expect(all.members.map((m: { userId: string }) => m.userId)).toEqual(["user-1", "user-2", "user-3"]);
    expect(all.members[0].traits).toMatchObject({ plan: "pro", email: "ann@example.com" });
    const found = await a.get(`/api/audiences/${created.id}/members?q=BOB`);
    expect(found.members.map((m: { userId: string }) => m.userId)).toEqual(["user-2"]);
    const page = await a.get(`/api/audiences/${created.id}/members?limit=2`);
    expect(page.nextCursor).toBe("user-2");
    const next = await a.get(`/api/audiences/${created.id}/members?limit=2&cursor=${page.nextCursor}`);
    expect(next).toEqual({ members: [expect.objectContaining({ userId: "user-3" })], nextCursor: null });
  });

  it("Sync now queues one sync; asking again while it waits returns the same one", async () => {
    const created = await a.post("/api/audiences", {
      name: "Pro plan",
      sourceIds: [sourceId],
      condition: { trait: "plan", op: "equals", value: "pro" },
    });
    await completedSyncs(a, created.id, 1);
    const first = await a.request("POST", `/api/audiences/${created.id}/sync`);
    expect(first.status).toBe(202);
    const second = await a.request("POST", `/api/audiences/${created.id}/sync`);
    // Either the first is still waiting/running (same sync, 200) or it already finished (a new one, 202).
    if (second.status === 200) expect(second.body.sync.id).toBe(first.body.sync.id);
    else expect(second.status).toBe(202);
    const syncs = await completedSyncs(a, created.id, 2);
    expect(syncs[0]).toMatchObject({ trigger: "manual", entered: 0, exited: 0, sent: 0 });
  });

  it("refuses a second audience with the same property name (409) and keeps nothing of it", async () => {
    await a.post("/api/audiences", { name: "Premium Users", sourceIds: [sourceId], condition });
    const before = (await a.get("/api/audiences")).audiences.length;
    const dup = await a.request("POST", "/api/audiences", { name: "premium-users", sourceIds: [sourceId], condition });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("conflict");
    expect(dup.body.error.message).toContain('"premium_users"');
    expect(dup.body.error.fields.name[0]).toContain("premium_users");
    expect((await a.get("/api/audiences")).audiences.length).toBe(before);
    // Renaming another audience onto it is refused the same way.
    const other = await a.post("/api/audiences", { name: "Others", sourceIds: [sourceId], condition });
    expect((await a.request("PATCH", `/api/audiences/${other.id}`, { name: "Premium users!" })).status).toBe(409);
    // The same property in another workspace is fine.
    const bSource = (await b.post("/api/sources", { name: "S" })).id;
    expect((await b.request("POST", "/api/audiences", { name: "Premium Users", sourceIds: [bSource], condition })).status).toBe(201);
  });

  it("answers 422 with field errors for a bad condition, name or reference", async () => {
    const r = await a.request("POST", "/api/audiences", {
      name: "!!!",
      sourceIds: [],
      condition: {
        all: [
          { trait: "plan", op: "like", value: "x" },
          { event: "Login", atLeast: 0, withinDays: 7 },
          { trait: "age", op: "gt" },
        ],
      },
      scheduleMinutes: 1,
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.fields).sort()).toEqual(
      ["condition.all.0.op", "condition.all.1.atLeast", "condition.all.2.value", "name", "scheduleMinutes", "sourceIds"].sort(),
    );
    const bSource = (await b.post("/api/sources", { name: "theirs" })).id;
    const foreign = await a.request("POST", "/api/audiences", { name: "Foreign", sourceIds: [bSource], condition });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.fields.sourceIds[0]).toContain(bSource);
    const badDest = await a.request("POST", "/api/audiences", {
      name: "Bad dest",
      sourceIds: [sourceId],
      destinationIds: [crypto.randomUUID()],
      condition,
    });
    expect(badDest.body.error.fields.destinationIds[0]).toMatch(/Unknown destination/);
    expect((await a.request("POST", "/api/audiences/preview", { condition: { nope: 1 }, sourceIds: [sourceId] })).status).toBe(422);
  });

  it("hides another workspace's audiences (404) and 404s malformed ids", async () => {
    const mine = await a.post("/api/audiences", { name: "Mine only", sourceIds: [sourceId], condition });
    for (const [method, path] of [
      ["GET", `/api/audiences/${mine.id}`],
      ["PATCH", `/api/audiences/${mine.id}`],
      ["DELETE", `/api/audiences/${mine.id}`],
      ["POST", `/api/audiences/${mine.id}/sync`],
      ["GET", `/api/audiences/${mine.id}/syncs`],
      ["GET", `/api/audiences/${mine.id}/members`],
      ["GET", `/api/audiences/not-a-uuid`],
    ] as const) {
      const r = await b.request(method, path, method === "PATCH" ? { name: "stolen" } : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await b.get("/api/audiences")).audiences.find((x: { id: string }) => x.id === mine.id)).toBeUndefined();
    expect((await fetch(`${stack.app.url}/api/audiences`)).status).toBe(401);
  });

  it("updates condition, sources, destinations and schedule; deletes", async () => {
    const created = await a.post("/api/audiences", { name: "Editable", sourceIds: [sourceId], condition });
    const dest = (await a.post("/api/destinations", { name: "Hook", urls: ["http://127.0.0.1:9/hook"], sourceIds: [] })).id;
    const updated = await a.patch(`/api/audiences/${created.id}`, {
      condition: { trait: "plan", op: "equals", value: "free" },
      destinationIds: [dest],
      scheduleMinutes: 60,
    });
    expect(updated).toMatchObject({
      condition: { trait: "plan", op: "equals", value: "free" },
      destinationIds: [dest],
      scheduleMinutes: 60,
      name: "Editable",
    });
    expect((await a.patch(`/api/audiences/${created.id}`, { scheduleMinutes: null })).scheduleMinutes).toBeNull();
    expect((await a.request("DELETE", `/api/audiences/${created.id}`)).status).toBe(204);
    expect((await a.request("GET", `/api/audiences/${created.id}`)).status).toBe(404);
  });
});
