// Roles and token scopes, route by route (docs/management-api.md#roles). The table is generated: every
// route.ts method under app/api, bound to its endpoint in the registry, called as an owner, an admin
// and a viewer (dashboard sessions) and with a read-only and a full API token. The expected answer
// comes from the endpoint's declared access, so a new route is in the table without anyone adding it.
// Ids are ones that exist nowhere and bodies are empty: an allowed call answers anything but 401/403
// (404, 422 …) and changes nothing; a refused one answers 403 with a message that says why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleAllows, type Role } from "../../lib/api/access";
import { ENDPOINTS } from "../../lib/api/endpoints";
import type { Access } from "../../lib/api/endpoint";
import { discoverApiRoutes, MUTATING } from "../harness/api-routes";
import { inviteMember, OperatorClient, setupOwner, type SessionClient } from "../harness/members";
import { ApiClient, startStack, type Stack } from "../harness/stack";

const NOWHERE = "00000000-0000-4000-8000-000000000000";

type Caller = { name: string; role: Role; session: boolean; client: () => ApiClient };

let stack: Stack;
let owner: SessionClient;
let admin: SessionClient;
let viewer: SessionClient;
let readToken: ApiClient;
let fullToken: ApiClient;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  owner = await setupOwner(stack.app.url);
  admin = await inviteMember(owner, "admin@example.com", "admin");
  viewer = await inviteMember(owner, "viewer@example.com", "viewer");
  readToken = new ApiClient(stack.app.url, (await owner.post("/api/tokens", { name: "read", scope: "read" })).token);
  fullToken = new ApiClient(stack.app.url, (await owner.post("/api/tokens", { name: "full", scope: "full" })).token);
});
afterAll(async () => {
  await stack?.stop();
});

const CALLERS: Caller[] = [
  { name: "owner", role: "owner", session: true, client: () => owner },
  { name: "admin", role: "admin", session: true, client: () => admin },
  { name: "viewer", role: "viewer", session: true, client: () => viewer },
  { name: "read-only token", role: "viewer", session: false, client: () => readToken },
  // A full token acts as an admin: members, roles and workspace settings need an owner, logged in.
  { name: "full token", role: "admin", session: false, client: () => fullToken },
];

/** The route's endpoint in the registry: `/api/sources/[id]` is declared as `/api/sources/{id}`. */
function accessOf(method: string, route: string): Access {
  const path = route.replace(/\[(\w+)\]/g, "{$1}");
  const ep = ENDPOINTS.find((e) => e.method === method && e.path === path);
  if (!ep) throw new Error(`${method} ${route} has no endpoint in lib/api/endpoints.ts`);
  return ep.access;
}

const routes = discoverApiRoutes()
  .map((r) => ({ ...r, access: accessOf(r.method, r.route) }))
  .filter((r) => r.access !== "public");

describe("the role table", () => {
  it("covers every authenticated route, each bound to a declared endpoint", () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => r.access === "owner").length).toBeGreaterThan(3);
  });

  it("answers each caller as its role allows: 403 with a reason when not, never 401/403 when it may", async () => {
    const seen: string[] = [];
    for (const r of routes) {
      const p = r.route.replace(/\[\w+\]/g, NOWHERE);
      // The five callers of one route at once: the table stays a few seconds on a loaded machine.
      const answers = await Promise.all(CALLERS.map((c) => c.client().request(r.method, p, MUTATING.has(r.method) ? {} : undefined)));
      for (const [i, caller] of CALLERS.entries()) {
        const res = answers[i];
        // account: your own (sessions, password, workspaces), so a dashboard session's only.
        const allowed = r.access === "account" ? caller.session : r.access !== "operator" && roleAllows(caller.role, r.access);
        const got = res.status === 403 ? "403" : res.status === 401 ? "401" : "allowed";
        expect({ route: r.key, caller: caller.name, got }).toEqual({ route: r.key, caller: caller.name, got: allowed ? "allowed" : "403" });
        if (!allowed) {
          expect(res.body.error.code).toBe("forbidden");
          seen.push(res.body.error.message);
        }
      }
    }
    expect(seen).toContain("This API token is read-only: use a full token to change anything");
    expect(seen.some((m) => /needs the admin role; you are a viewer/.test(m))).toBe(true);
    expect(seen.some((m) => /Only an owner may do this.*you are an admin/.test(m))).toBe(true);
  });
});

describe("what each role sees", () => {
  it("shows write keys to admins, not to viewers or read-only tokens; secrets are revealed to admins and full tokens only", async () => {
    const source = await admin.post("/api/sources", { name: "web" });
    const dest = await admin.post("/api/destinations", {
      name: "hook",
      urls: ["http://127.0.0.1:9/x"],
      sourceIds: [source.id],
      sharedSecret: "s3cret-value",
    });
    expect((await admin.get(`/api/sources/${source.id}`)).writeKey).toBe(source.writeKey);
    for (const c of [viewer, readToken]) {
      expect((await c.get(`/api/sources/${source.id}`)).writeKey).toBeNull();
      expect(JSON.stringify(await c.get("/api/sources"))).not.toContain(source.writeKey);
      expect(JSON.stringify(await c.get(`/api/destinations/${dest.id}`))).not.toContain("s3cret-value");
      expect((await c.request("POST", `/api/destinations/${dest.id}/reveal`, { secret: "sharedSecret" })).status).toBe(403);
    }
    for (const c of [admin, fullToken]) {
      expect((await c.post(`/api/destinations/${dest.id}/reveal`, { secret: "sharedSecret" })).value).toBe("s3cret-value");
    }
  });
});

describe("members", () => {
  it("keeps at least one owner, and a changed role or a removal takes effect at once", async () => {
    const members = (await owner.get("/api/members")).members;
    expect(members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`).sort()).toEqual([
      "admin@example.com:admin",
      "owner@example.com:owner",
      "viewer@example.com:viewer",
    ]);
    const me = members.find((m: { email: string }) => m.email === "owner@example.com");
    const last = await owner.request("PATCH", `/api/members/${me.userId}`, { role: "admin" });
    expect(last.status).toBe(409);
    expect(last.body.error.message).toMatch(/at least one owner/);
    expect((await owner.request("DELETE", `/api/members/${me.userId}`)).status).toBe(409);

    const v = members.find((m: { email: string }) => m.email === "viewer@example.com");
    expect((await viewer.request("POST", "/api/sources", { name: "x" })).status).toBe(403);
    await owner.patch(`/api/members/${v.userId}`, { role: "admin" });
    expect((await viewer.request("POST", "/api/sources", { name: "x" })).status).toBe(201);
    await owner.del(`/api/members/${v.userId}`);
    expect((await viewer.request("GET", "/api/sources")).status).toBe(401);
  });

  it("keeps owners of another workspace out of this one's members and invitations", async () => {
    const other = await stack.newWorkspace("other");
    // The operator's token acts as an owner in the workspace it names: it invites that workspace's owner.
    const otherOwner = await inviteMember(new OperatorClient(stack.app.url, other.workspaceId!), "other-owner@example.com", "owner");
    const adminId = (await owner.get("/api/members")).members.find((m: { email: string }) => m.email === "admin@example.com").userId;
    expect((await otherOwner.request("PATCH", `/api/members/${adminId}`, { role: "viewer" })).status).toBe(404);
    expect((await otherOwner.request("DELETE", `/api/members/${adminId}`)).status).toBe(404);
    expect(JSON.stringify(await otherOwner.get("/api/members"))).not.toContain("admin@example.com");
    const invite = await owner.post("/api/invitations", { role: "viewer" });
    expect((await otherOwner.request("DELETE", `/api/invitations/${invite.id}`)).status).toBe(404);
    expect(JSON.stringify(await otherOwner.get("/api/invitations"))).not.toContain(invite.id);
  });
});
