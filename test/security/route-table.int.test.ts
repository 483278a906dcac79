// Security of the Management API, route by route. The routes come from the app/api folder, and the
// table below must name every one of them: a new route.ts without an entry here fails the first test.
// Checked for every authenticated route: no credentials → 401, a revoked token → 401, another
// workspace's resource → 404 (and left untouched), a cookie-authenticated state change without the
// CSRF header → 403. Cookie-issuing auth routes refuse cross-site origins.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, SETUP_CODE, startStack, waitFor, type Stack } from "../harness/stack";
import { startReceiver, type Receiver } from "../harness/delivery/receiver";
import { MUTATING, discoverApiRoutes } from "../harness/api-routes";
import { postTracking } from "../harness/tracking";

type Ids = {
  source: string;
  destination: string;
  message: string;
  attempt: string;
  token: string;
  audience: string;
  bin: string;
  deletion: string;
  capturedRequest: string;
  backfill: string;
  plan: string;
};
type Ctx = { a: ApiClient; b: ApiClient; ids: Ids };

/** A route about one resource: its path for workspace A's resource, and a valid body. */
type ItemSpec = { kind: "item"; id: keyof Ids; body?: unknown };
/** A collection route: how workspace B is kept out of A's data. */
type CollectionSpec = { kind: "collection"; body?: unknown; crossWorkspace(ctx: Ctx): Promise<void> };
/** No authentication by design (and why). */
type PublicSpec = { kind: "public"; why: string };
/** Not for a workspace's token (owner-only, or your own account): 403 before any lookup; isolated as test/security/roles.int.test.ts proves. */
type OwnerSpec = { kind: "owner"; why: string };
type Spec = ItemSpec | CollectionSpec | PublicSpec | OwnerSpec;
const OWNER_ONLY: OwnerSpec = { kind: "owner", why: "members and invitations: owners only, across workspaces in roles.int.test.ts" };
const ACCOUNT: OwnerSpec = { kind: "owner", why: "your own account: sessions only, scoped to the session's user (account.int.test.ts)" };

const ids = (list: { id: string }[]) => list.map((x) => x.id);
/** Users who performed "E" at least once in the last 30 days. */
const CONDITION = { event: "E", atLeast: 1, withinDays: 30 };

const EVERY_TYPE = { types: ["track", "identify", "page", "screen", "group", "alias"], events: { mode: "all", names: [] } };

const SPECS: Record<string, Spec> = {
  "GET /api/health": { kind: "public", why: "liveness for load balancers: database and queue reachable, no data" },
  "POST /api/auth/login": { kind: "public", why: "issues the session cookie; refuses cross-site origins (tested below)" },
  "POST /api/auth/logout": { kind: "public", why: "clears the session cookie; refuses cross-site origins (tested below)" },
  "POST /api/auth/setup": { kind: "public", why: "first run only; refuses cross-site origins (tested below)" },
  "POST /api/invitations/accept": { kind: "public", why: "the invitee may have no account yet; the link's secret is the credential" },
  "PATCH /api/members/[id]": OWNER_ONLY,
  "PATCH /api/workspace": OWNER_ONLY,
  "GET /api/me": ACCOUNT,
  "POST /api/me/workspaces": ACCOUNT,
  "PUT /api/me/workspace": ACCOUNT,
  "POST /api/me/password": ACCOUNT,
  "GET /api/me/sessions": ACCOUNT,
  "DELETE /api/me/sessions": ACCOUNT,
  "DELETE /api/members/[id]": OWNER_ONLY,
  "GET /api/invitations": OWNER_ONLY,
  "POST /api/invitations": OWNER_ONLY,
  "DELETE /api/invitations/[id]": OWNER_ONLY,

  "GET /api/sources/[id]": { kind: "item", id: "source" },
  "PATCH /api/sources/[id]": { kind: "item", id: "source", body: { name: "hijacked" } },
  "DELETE /api/sources/[id]": { kind: "item", id: "source" },
  "POST /api/sources/[id]/rotate-key": { kind: "item", id: "source", body: {} },
  "GET /api/sources/[id]/events": { kind: "item", id: "source" },
  "GET /api/destinations/[id]": { kind: "item", id: "destination" },
  "PATCH /api/destinations/[id]": { kind: "item", id: "destination", body: { name: "hijacked" } },
  "DELETE /api/destinations/[id]": { kind: "item", id: "destination" },
  "POST /api/destinations/[id]/test": { kind: "item", id: "destination", body: { type: "track" } },
  "GET /api/destinations/[id]/health": { kind: "item", id: "destination" },
  "POST /api/destinations/[id]/reveal": { kind: "item", id: "destination", body: { secret: "sharedSecret" } },
  "POST /api/destinations/[id]/rotate-secret": { kind: "item", id: "destination", body: { secret: "sharedSecret", graceMinutes: 60 } },
  "POST /api/destinations/[id]/enable-url": { kind: "item", id: "destination", body: { url: "http://127.0.0.1:9/x" } },
  "POST /api/destinations/[id]/pause": { kind: "item", id: "destination" },
  "POST /api/destinations/[id]/resume": { kind: "item", id: "destination" },
  "POST /api/destinations/[id]/backfills": {
    kind: "item",
    id: "destination",
    body: { sourceIds: ["00000000-0000-4000-8000-000000000000"], from: new Date(Date.now() - 3_600_000).toISOString(), dryRun: true },
  },
  "GET /api/destinations/[id]/backfills": { kind: "item", id: "destination" },
  "GET /api/destinations/[id]/backfills/[backfillId]": { kind: "item", id: "destination" },
  "DELETE /api/destinations/[id]/backfills/[backfillId]": { kind: "item", id: "destination" },
  "GET /api/messages/[id]": { kind: "item", id: "message" },
  "GET /api/attempts/[id]": { kind: "item", id: "attempt" },
  "DELETE /api/tokens/[id]": { kind: "item", id: "token" },
  "GET /api/audiences/[id]": { kind: "item", id: "audience" },
  "PATCH /api/audiences/[id]": { kind: "item", id: "audience", body: { name: "hijacked" } },
  "DELETE /api/audiences/[id]": { kind: "item", id: "audience" },
  "POST /api/audiences/[id]/sync": { kind: "item", id: "audience", body: {} },
  "GET /api/audiences/[id]/syncs": { kind: "item", id: "audience" },
  "GET /api/audiences/[id]/members": { kind: "item", id: "audience" },
  "GET /api/deletions/[id]": { kind: "item", id: "deletion" },
  "GET /api/capture-bins/[id]": { kind: "item", id: "bin" },
  "PATCH /api/capture-bins/[id]": { kind: "item", id: "bin", body: { name: "hijacked" } },
  "DELETE /api/capture-bins/[id]": { kind: "item", id: "bin" },
  "GET /api/capture-bins/[id]/requests": { kind: "item", id: "bin" },
  "DELETE /api/capture-bins/[id]/requests": { kind: "item", id: "bin" },
  "GET /api/capture-bins/[id]/requests/[requestId]": { kind: "item", id: "bin" },
  "POST /api/capture-bins/[id]/requests/[requestId]/verify": {
    kind: "item",
    id: "bin",
    body: { destinationId: "00000000-0000-4000-8000-000000000000" },
  },

  "GET /api/tracking-plans/[id]": { kind: "item", id: "plan" },
  "PATCH /api/tracking-plans/[id]": { kind: "item", id: "plan", body: { name: "hijacked" } },
  "DELETE /api/tracking-plans/[id]": { kind: "item", id: "plan" },
  "GET /api/tracking-plans/[id]/export": { kind: "item", id: "plan" },
  "GET /api/tracking-plans/[id]/violations": { kind: "item", id: "plan" },
  "GET /api/tracking-plans": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/tracking-plans")).trackingPlans)).not.toContain(a.plan);
    },
  },
  "POST /api/tracking-plans": {
    kind: "collection",
    body: { name: "x" },
    async crossWorkspace({ b, ids: a }) {
      // Connecting another workspace's source is refused at the field; nothing is saved.
      const r = await b.request("POST", "/api/tracking-plans", { name: "steal", sourceIds: [a.source] });
      expect(r.status).toBe(422);
      expect(r.body.error.fields).toHaveProperty("sourceIds.0");
    },
  },
  "POST /api/tracking-plans/import": {
    kind: "collection",
    body: {
      plan: {
        display_name: "x",
        rules: { events: [{ name: "E", rules: { type: "object", properties: { properties: { type: "object" } } } }] },
      },
    },
    async crossWorkspace({ b, ids: a }) {
      const r = await b.request("POST", "/api/tracking-plans/import", {
        plan: { display_name: "steal", rules: { events: [{ name: "E", rules: { type: "object" } }] } },
        sourceIds: [a.source],
      });
      expect(r.status).toBe(422);
      expect(r.body.error.fields).toHaveProperty("sourceIds.0");
    },
  },
  "POST /api/tracking-plans/validate-schema": {
    kind: "collection",
    body: { schema: { type: "object" } },
    async crossWorkspace({ b }) {
      // A pure check of a schema: it reads no workspace's data.
      expect(await b.post("/api/tracking-plans/validate-schema", { schema: { type: "object" } })).toEqual({ ok: true, problem: null });
    },
  },
  "POST /api/tracking-plans/preview": {
    kind: "collection",
    body: { rules: [], sourceIds: ["00000000-0000-4000-8000-000000000000"] },
    async crossWorkspace({ a, b, ids: x }) {
      // A's preview judges its source's calls; B, naming A's source, judges none of them.
      expect((await a.post("/api/tracking-plans/preview", { rules: [], sourceIds: [x.source] })).considered).toBeGreaterThan(0);
      const r = await b.request("POST", "/api/tracking-plans/preview", { rules: [], sourceIds: [x.source] });
      expect(r.status === 422 || (r.status === 200 && r.body.considered === 0)).toBe(true);
    },
  },

  "GET /api/sources": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/sources")).sources)).not.toContain(a.source);
    },
  },
  "POST /api/sources": {
    kind: "collection",
    body: { name: "B's" },
    async crossWorkspace({ a, b }) {
      const created = await b.post("/api/sources", { name: "B's" });
      expect((await a.request("GET", `/api/sources/${created.id}`)).status).toBe(404);
    },
  },
  "GET /api/destinations": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      const list = await b.get("/api/destinations");
      expect(ids(list.destinations)).not.toContain(a.destination);
    },
  },
  "POST /api/destinations": {
    kind: "collection",
    body: { name: "x", urls: ["http://127.0.0.1:9/x"], sourceIds: [] },
    async crossWorkspace({ b, ids: a }) {
      // Connecting another workspace's source is refused field by field; nothing is saved.
      const r = await b.request("POST", "/api/destinations", { name: "steal", urls: ["http://127.0.0.1:9/x"], sourceIds: [a.source] });
      expect(r.status).toBe(422);
      expect(r.body.error.fields).toHaveProperty("sourceIds.0");
    },
  },
  "GET /api/attempts": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect((await b.get(`/api/attempts?destinationId=${a.destination}`)).attempts).toEqual([]);
      expect((await b.get(`/api/attempts?messageId=sec-1`)).attempts).toEqual([]);
      expect(ids((await b.get(`/api/attempts`)).attempts)).not.toContain(a.attempt);
    },
  },
  "GET /api/deliveries": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect((await b.get(`/api/deliveries?destinationId=${a.destination}`)).deliveries).toEqual([]);
      expect((await b.get(`/api/deliveries?messageId=sec-1`)).deliveries).toEqual([]);
      expect(JSON.stringify((await b.get(`/api/deliveries`)).deliveries)).not.toContain(a.destination);
    },
  },
  "POST /api/messages/replay": {
    kind: "collection",
    body: { ids: ["00000000-0000-4000-8000-000000000000"] },
    async crossWorkspace({ b, ids: a }) {
      expect(await b.post("/api/messages/replay", { ids: [a.message], includeDelivered: true })).toEqual({ replayed: 0 });
      expect(await b.post("/api/messages/replay", { filter: { destinationId: a.destination }, includeDelivered: true })).toEqual({
        replayed: 0,
      });
    },
  },
  "GET /api/tokens": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/tokens")).tokens)).not.toContain(a.token);
    },
  },
  "POST /api/tokens": {
    kind: "collection",
    body: { name: "t" },
    async crossWorkspace({ a, b }) {
      const created = await b.post("/api/tokens", { name: "B's" });
      expect(ids((await a.get("/api/tokens")).tokens)).not.toContain(created.id);
    },
  },
  "GET /api/audiences": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/audiences")).audiences)).not.toContain(a.audience);
    },
  },
  "POST /api/audiences": {
    kind: "collection",
    body: { name: "x", sourceIds: ["00000000-0000-4000-8000-000000000000"], condition: CONDITION },
    async crossWorkspace({ b, ids: a }) {
      const r = await b.request("POST", "/api/audiences", {
        name: "steal",
        sourceIds: [a.source],
        destinationIds: [a.destination],
        condition: CONDITION,
      });
      expect(r.status).toBe(422);
      expect(ids((await b.get("/api/audiences")).audiences)).toEqual([]);
    },
  },
  "POST /api/audiences/preview": {
    kind: "collection",
    body: { sourceIds: ["00000000-0000-4000-8000-000000000000"], condition: CONDITION },
    async crossWorkspace({ a, b, ids: x }) {
      // A's own preview counts its user; B, naming A's source, gets nothing of it.
      expect((await a.post("/api/audiences/preview", { sourceIds: [x.source], condition: CONDITION })).count).toBe(1);
      const r = await b.request("POST", "/api/audiences/preview", { sourceIds: [x.source], condition: CONDITION });
      expect(r.status === 422 || (r.status === 200 && r.body.count === 0)).toBe(true);
    },
  },
  "POST /api/destinations/mapping-preview": {
    kind: "collection",
    body: { sourceIds: ["00000000-0000-4000-8000-000000000000"], urls: ["https://example.com/hook"] },
    async crossWorkspace({ a, b, ids: x }) {
      // A's preview renders its source's calls; B, naming A's source, gets none of them.
      const body = { sourceIds: [x.source], urls: ["https://example.com/hook"], mapping: { "@path": "$." } };
      expect((await a.post("/api/destinations/mapping-preview", body)).requests.length).toBeGreaterThan(0);
      const r = await b.request("POST", "/api/destinations/mapping-preview", body);
      expect(r.status === 422 || (r.status === 200 && r.body.requests.length === 0)).toBe(true);
    },
  },
  "POST /api/destinations/filter-preview": {
    kind: "collection",
    body: { sourceIds: ["00000000-0000-4000-8000-000000000000"], filter: EVERY_TYPE },
    async crossWorkspace({ a, b, ids: x }) {
      // A's preview looks at its source's calls; B, naming A's source, sees none of them.
      expect((await a.post("/api/destinations/filter-preview", { sourceIds: [x.source], filter: EVERY_TYPE })).considered).toBeGreaterThan(
        0,
      );
      const r = await b.request("POST", "/api/destinations/filter-preview", { sourceIds: [x.source], filter: EVERY_TYPE });
      expect(r.status === 422 || (r.status === 200 && r.body.considered === 0)).toBe(true);
    },
  },
  "GET /api/capture-bins": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/capture-bins")).bins)).not.toContain(a.bin);
    },
  },
  "POST /api/capture-bins": {
    kind: "collection",
    body: { name: "b" },
    async crossWorkspace({ a, b }) {
      const created = await b.post("/api/capture-bins", { name: "B's" });
      expect((await a.request("GET", `/api/capture-bins/${created.id}`)).status).toBe(404);
    },
  },
  "GET /api/stats/deliveries": {
    kind: "collection",
    async crossWorkspace({ a, b, ids: x }) {
      const mine = await a.get(`/api/stats/deliveries?destinationId=${x.destination}`);
      const theirs = await b.get(`/api/stats/deliveries?destinationId=${x.destination}`);
      expect(JSON.stringify(mine)).not.toEqual(JSON.stringify(theirs));
      expect(JSON.stringify(theirs.totals ?? theirs)).not.toMatch(/"total":[1-9]/);
    },
  },
  "GET /api/stats/destinations": {
    kind: "collection",
    async crossWorkspace({ a, b, ids: x }) {
      expect(JSON.stringify(await a.get("/api/stats/destinations"))).toContain(x.destination);
      expect(JSON.stringify(await b.get("/api/stats/destinations"))).not.toContain(x.destination);
    },
  },
  "GET /api/stats/failures": {
    kind: "collection",
    // A's receiver answers 200, so A has no failures here; test/stats.int.test.ts groups real ones and checks B sees none.
    async crossWorkspace({ b, ids: x }) {
      const theirs = await b.get(`/api/stats/failures?destinationId=${x.destination}`);
      expect(theirs.groups).toEqual([]);
      expect(JSON.stringify(await b.get("/api/stats/failures"))).not.toContain(x.destination);
    },
  },
  "GET /api/deletions": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(ids((await b.get("/api/deletions")).deletions)).not.toContain(a.deletion);
    },
  },
  "POST /api/deletions": {
    kind: "collection",
    body: { userIds: ["nobody"] },
    async crossWorkspace({ a, b, ids: x }) {
      // B erasing "u1" erases B's u1, never A's: A's message from u1 keeps its payload.
      const req = await b.post("/api/deletions", { userIds: ["u1"] });
      await waitFor(async () => (await b.get(`/api/deletions/${req.id}`)).status === "completed", { what: "B's deletion to complete" });
      const message = await a.get(`/api/messages/${x.message}`);
      expect(JSON.stringify(message)).toContain('"userId":"u1"');
      expect(message.message.payload).not.toBeNull();
    },
  },
  "GET /api/openapi.json": {
    kind: "collection",
    async crossWorkspace({ a, b }) {
      // One document for every workspace, generated from the contracts: nothing of any workspace in it.
      expect(await b.get("/api/openapi.json")).toEqual(await a.get("/api/openapi.json"));
    },
  },
  "GET /api/alerts": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      expect(JSON.stringify(await b.get("/api/alerts"))).not.toContain(a.destination);
    },
  },
  "GET /api/alerts/settings": {
    kind: "collection",
    async crossWorkspace({ a, b }) {
      await a.request("PUT", "/api/alerts/settings", { notifyUrl: "https://hooks.example.com/services/A" });
      expect(await b.get("/api/alerts/settings")).toMatchObject({ notifyUrlSet: false });
    },
  },
  "PUT /api/alerts/settings": {
    kind: "collection",
    body: { failingMinutes: 20 },
    async crossWorkspace({ a, b }) {
      await b.request("PUT", "/api/alerts/settings", { failingMinutes: 99 });
      expect((await a.get("/api/alerts/settings")).failingMinutes).not.toBe(99);
    },
  },
  "GET /api/audit": {
    kind: "collection",
    async crossWorkspace({ b, ids: a }) {
      // A's changes are in A's audit log only.
      expect(JSON.stringify(await b.get("/api/audit?limit=200"))).not.toContain(a.destination);
    },
  },
  "GET /api/members": {
    kind: "collection",
    async crossWorkspace({ a, b }) {
      // Neither operator-made workspace has members; each sees its own (empty) list, never the other's.
      expect((await a.get("/api/members")).members).toEqual([]);
      expect((await b.get("/api/members")).members).toEqual([]);
    },
  },
  "POST /api/workspaces": {
    kind: "collection",
    body: { name: "w" },
    async crossWorkspace({ b }) {
      // Operator only: a workspace's own token cannot create workspaces.
      expect((await b.request("POST", "/api/workspaces", { name: "mine now" })).status).toBe(403);
    },
  },
};

const routes = discoverApiRoutes();
const authenticated = routes.filter((r) => SPECS[r.key] && SPECS[r.key].kind !== "public");

let stack: Stack;
let rx: Receiver;
let a: ApiClient;
let b: ApiClient;
let A: Ids;
let session: {
  cookie: string;
  csrf: string;
  workspaceSource: string;
  workspaceDestination: string;
  token: string;
  audience: string;
  bin: string;
};

function pathFor(route: string, spec: Spec, which: Ids): string {
  if (spec.kind !== "item") return route;
  return route.replace("[id]", which[spec.id]).replace("[requestId]", which.capturedRequest).replace("[backfillId]", which.backfill);
}

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: { EVENTRAIL_RETRY_BASE_MS: "200" } });
  rx = await startReceiver(() => ({ status: 200 }));
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  const source = await a.post("/api/sources", { name: "A's source" });
  const destination = await a.post("/api/destinations", {
    name: "A's destination",
    urls: [`${rx.url}/a`],
    sourceIds: [source.id],
    sharedSecret: "a-secret",
  });
  expect(
    (await postTracking(stack.app.url, "/v1/track", { userId: "u1", event: "E", messageId: "sec-1" }, { writeKey: source.writeKey }))
      .status,
  ).toBe(200);
  const attempt = await waitFor(async () => (await a.get(`/api/attempts?destinationId=${destination.id}`)).attempts[0], {
    what: "A's attempt",
  });
  const token = await a.post("/api/tokens", { name: "A's extra" });
  const audience = await a.post("/api/audiences", {
    name: "A's audience",
    sourceIds: [source.id],
    destinationIds: [destination.id],
    condition: CONDITION,
  });
  const bin = await a.post("/api/capture-bins", { name: "A's bin" });
  const deletion = await a.post("/api/deletions", { userIds: ["someone-else"] });
  const plan = await a.post("/api/tracking-plans", { name: "A's plan" });
  expect((await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "A's capture" })).status).toBe(200);
  const [captured] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
  const backfill = await a.post(`/api/destinations/${destination.id}/backfills`, {
    sourceIds: [source.id],
    from: new Date(Date.now() - 3_600_000).toISOString(),
  });
  A = {
    source: source.id,
    destination: destination.id,
    message: attempt.messageRowId,
    attempt: String(attempt.id),
    token: token.id,
    audience: audience.id,
    bin: bin.id,
    deletion: deletion.id,
    capturedRequest: captured.id,
    backfill: backfill.id,
    plan: plan.id,
  };

  // A dashboard session (first-run setup creates the owner and its own workspace).
  const res = await fetch(`${stack.app.url}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery", code: SETUP_CODE }),
  });
  expect(res.status).toBe(201);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("er_csrf="))!.slice("er_csrf=".length);
  const cookie = cookies.join("; ");
  const asOwner = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(stack.app.url + p, {
      method,
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.status).toBeLessThan(300);
    return r.json();
  };
  const ownSource = await asOwner("POST", "/api/sources", { name: "owner's" });
  const ownDestination = await asOwner("POST", "/api/destinations", { name: "owner's", urls: [`${rx.url}/o`], sourceIds: [] });
  const ownToken = await asOwner("POST", "/api/tokens", { name: "owner's" });
  const ownAudience = await asOwner("POST", "/api/audiences", { name: "owner's", sourceIds: [ownSource.id], condition: CONDITION });
  const ownBin = await asOwner("POST", "/api/capture-bins", { name: "owner's" });
  session = {
    cookie,
    csrf,
    workspaceSource: ownSource.id,
    workspaceDestination: ownDestination.id,
    token: ownToken.id,
    audience: ownAudience.id,
    bin: ownBin.id,
  };
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});

describe("the route table", () => {
  it("covers every route.ts under app/api, method by method", () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.map((r) => r.key)).toEqual(Object.keys(SPECS).sort((x, y) => x.localeCompare(y)));
  });
});

describe("authentication", () => {
  it("answers 401 without credentials, with a malformed header and with an unknown token, on every authenticated route", async () => {
    for (const r of authenticated) {
      const p = pathFor(r.route, SPECS[r.key], A);
      for (const headers of [{}, { authorization: "Basic abc" }, { authorization: "Bearer er_live_notatoken" }] as Record<
        string,
        string
      >[]) {
        const res = await fetch(stack.app.url + p, {
          method: r.method,
          headers: { ...headers, "content-type": "application/json" },
          body: MUTATING.has(r.method) ? "{}" : undefined,
        });
        expect({ route: r.key, status: res.status }).toEqual({ route: r.key, status: 401 });
        expect((await res.json()).error.code).toBe("unauthorized");
      }
    }
  });

  it("refuses a revoked token on every authenticated route, at once", async () => {
    const t = await a.post("/api/tokens", { name: "to revoke" });
    const revoked = new ApiClient(stack.app.url, t.token);
    expect((await revoked.request("GET", "/api/sources")).status).toBe(200);
    await a.del(`/api/tokens/${t.id}`);
    for (const r of authenticated) {
      const res = await revoked.request(r.method, pathFor(r.route, SPECS[r.key], A), MUTATING.has(r.method) ? {} : undefined);
      expect({ route: r.key, status: res.status }).toEqual({ route: r.key, status: 401 });
    }
  });
});

describe("workspace isolation", () => {
  it("answers 404 to another workspace on every route about one resource, and changes nothing", async () => {
    const items = authenticated.filter((r) => SPECS[r.key].kind === "item");
    expect(items.length).toBeGreaterThan(10);
    for (const r of items) {
      const spec = SPECS[r.key] as ItemSpec;
      const res = await b.request(r.method, pathFor(r.route, spec, A), spec.body);
      expect({ route: r.key, status: res.status }).toEqual({ route: r.key, status: 404 });
      expect(res.body.error.code).toBe("not_found");
    }
    // Ids that are not ids at all are 404 too, not 500.
    for (const r of items) {
      const res = await b.request(r.method, r.route.replace("[id]", "not-an-id"), (SPECS[r.key] as ItemSpec).body);
      expect({ route: r.key, status: res.status }).toEqual({ route: r.key, status: 404 });
    }
    const source = await a.get(`/api/sources/${A.source}`);
    expect(source.name).toBe("A's source");
    expect((await a.get(`/api/destinations/${A.destination}`)).name).toBe("A's destination");
    expect(ids((await a.get("/api/tokens")).tokens)).toContain(A.token);
    expect((await a.get("/api/tokens")).tokens.find((t: { id: string }) => t.id === A.token).revokedAt).toBeNull();
    expect((await a.get(`/api/audiences/${A.audience}`)).name).toBe("A's audience");
    expect((await a.get(`/api/capture-bins/${A.bin}`)).name).toBe("A's bin");
  });

  it("keeps every collection route to the caller's workspace", async () => {
    for (const r of authenticated.filter((x) => SPECS[x.key].kind === "collection")) {
      await (SPECS[r.key] as CollectionSpec).crossWorkspace({ a, b, ids: A });
    }
  });
});

describe("CSRF", () => {
  const mutating = () => authenticated.filter((r) => MUTATING.has(r.method));
  const own = (): Ids => ({
    ...A,
    source: session.workspaceSource,
    destination: session.workspaceDestination,
    token: session.token,
    audience: session.audience,
    bin: session.bin,
  });

  it("refuses every cookie-authenticated state change without the CSRF header, or with a wrong one (403)", async () => {
    expect(mutating().length).toBeGreaterThan(8);
    for (const r of mutating()) {
      const spec = SPECS[r.key];
      const body = JSON.stringify(spec.kind === "item" || spec.kind === "collection" ? (spec.body ?? {}) : {});
      for (const csrf of [undefined, "wrong-token", `${session.csrf}x`]) {
        const res = await fetch(stack.app.url + pathFor(r.route, spec, own()), {
          method: r.method,
          headers: { cookie: session.cookie, "content-type": "application/json", ...(csrf ? { "x-csrf-token": csrf } : {}) },
          body,
        });
        expect({ route: r.key, csrf, status: res.status }).toEqual({ route: r.key, csrf, status: 403 });
      }
    }
    // Nothing changed: the owner's source and destination are still there, the token not revoked.
    const get = (p: string) => fetch(stack.app.url + p, { headers: { cookie: session.cookie } });
    expect((await get(`/api/sources/${session.workspaceSource}`)).status).toBe(200);
    expect((await get(`/api/destinations/${session.workspaceDestination}`)).status).toBe(200);
    const tokens = await (await get("/api/tokens")).json();
    expect(tokens.tokens.find((t: { id: string }) => t.id === session.token).revokedAt).toBeNull();
    expect((await get(`/api/audiences/${session.audience}`)).status).toBe(200);
    expect((await get(`/api/capture-bins/${session.bin}`)).status).toBe(200);
  });

  it("lets reads through on the cookie alone, and the same change through with the header", async () => {
    const get = await fetch(`${stack.app.url}/api/sources`, { headers: { cookie: session.cookie } });
    expect(get.status).toBe(200);
    const patch = await fetch(`${stack.app.url}/api/sources/${session.workspaceSource}`, {
      method: "PATCH",
      headers: { cookie: session.cookie, "x-csrf-token": session.csrf, "content-type": "application/json" },
      body: JSON.stringify({ name: "renamed" }),
    });
    expect(patch.status).toBe(200);
  });

  it("refuses cross-site origins on the cookie-issuing auth routes", async () => {
    for (const r of routes.filter((x) => x.route.startsWith("/api/auth/"))) {
      const res = await fetch(stack.app.url + r.route, {
        method: r.method,
        headers: { origin: "https://evil.example", cookie: session.cookie, "content-type": "application/json" },
        body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery", code: SETUP_CODE }),
      });
      expect({ route: r.key, status: res.status }).toEqual({ route: r.key, status: 403 });
    }
    // The logout above was refused: the session still works.
    expect((await fetch(`${stack.app.url}/api/sources`, { headers: { cookie: session.cookie } })).status).toBe(200);
  });
});
