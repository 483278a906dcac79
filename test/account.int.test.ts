// Settings (issue 15.13) and several workspaces per person (issue 16): workspace name, password,
// your sessions, creating and switching workspaces — each only about the session's own account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteMember, login, PASSWORD, setupOwner, type SessionClient } from "./harness/members";
import { startStack, type Stack } from "./harness/stack";

let stack: Stack;
let owner: SessionClient;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  owner = await setupOwner(stack.app.url);
});
afterAll(async () => {
  await stack?.stop();
});

describe("your account", () => {
  it("lists your sessions and signs out the others; a new password ends them too and the old one stops working", async () => {
    const other = await login(stack.app.url, "owner@example.com");
    const third = await login(stack.app.url, "owner@example.com");
    const sessions = (await owner.get("/api/me/sessions")).sessions;
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(sessions[0].address).toMatch(/127\.0\.0\.1|::1/);

    expect(await owner.del("/api/me/sessions")).toEqual({ ended: 2 });
    expect((await other.request("GET", "/api/me")).status).toBe(401);
    expect((await third.request("GET", "/api/me")).status).toBe(401);
    expect((await owner.get("/api/me/sessions")).sessions).toHaveLength(1);

    const fourth = await login(stack.app.url, "owner@example.com");
    const wrong = await owner.request("POST", "/api/me/password", { currentPassword: "not it", newPassword: "a new long password" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.fields.currentPassword).toBeDefined();
    expect(
      (await owner.request("POST", "/api/me/password", { currentPassword: PASSWORD, newPassword: "a new long password" })).status,
    ).toBe(204);
    expect((await fourth.request("GET", "/api/me")).status).toBe(401);
    expect((await owner.request("GET", "/api/me")).status).toBe(200);
    await expect(login(stack.app.url, "owner@example.com")).rejects.toThrow(/401/);
    await login(stack.app.url, "owner@example.com", "a new long password");
  });

  it("renames the workspace (owners only), creates another one and switches between them", async () => {
    const viewer = await inviteMember(owner, "viewer@example.com", "viewer");
    expect((await viewer.request("PATCH", "/api/workspace", { name: "mine" })).status).toBe(403);
    expect(await owner.patch("/api/workspace", { name: "Acme" })).toMatchObject({ name: "Acme" });
    expect((await viewer.get("/api/me")).workspace.name).toBe("Acme");

    // The viewer makes a workspace of their own: its owner, and the session moves there.
    const created = await viewer.post("/api/me/workspaces", { name: "Side project" });
    const me = await viewer.get("/api/me");
    expect(me).toMatchObject({ role: "owner", workspace: { id: created.id, name: "Side project" } });
    expect(me.workspaces.map((w: { name: string; role: string }) => `${w.name}:${w.role}`)).toEqual(["Acme:viewer", "Side project:owner"]);
    expect((await viewer.get("/api/sources")).sources).toEqual([]);

    const acme = me.workspaces.find((w: { name: string }) => w.name === "Acme");
    await viewer.request("PUT", "/api/me/workspace", { workspaceId: acme.id });
    expect(await viewer.get("/api/me")).toMatchObject({ role: "viewer", workspace: { name: "Acme" } });
    expect((await viewer.request("POST", "/api/sources", { name: "x" })).status).toBe(403);

    // Not a member: no such workspace, whoever's it is.
    const ownerMe = await owner.get("/api/me");
    expect(ownerMe.workspaces).toHaveLength(1);
    expect((await owner.request("PUT", "/api/me/workspace", { workspaceId: created.id })).status).toBe(404);
  });
  it("caps the workspaces one account owns at 20: the 20th is created, the 21st refused with 409, even when asked all at once (issue 38)", async () => {
    const maker = await inviteMember(owner, "maker@example.com", "admin");
    for (let i = 1; i <= 19; i++) await maker.post("/api/me/workspaces", { name: `ws ${i}` });
    const owned = async (c: SessionClient) =>
      (await c.get("/api/me")).workspaces.filter((w: { role: string }) => w.role === "owner").length;
    expect(await owned(maker)).toBe(19);
    expect((await maker.request("POST", "/api/me/workspaces", { name: "ws 20" })).status).toBe(201);
    const over = await maker.request("POST", "/api/me/workspaces", { name: "ws 21" });
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(/at most 20 workspaces/);
    expect(await owned(maker)).toBe(20);
    // The session stays where it was, in the 20th.
    expect((await maker.get("/api/me")).workspace.name).toBe("ws 20");

    const rusher = await inviteMember(owner, "rusher@example.com", "viewer");
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => rusher.request("POST", "/api/me/workspaces", { name: `rush ${i}` })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
    expect(await owned(rusher)).toBe(20);
  });
});
