// The dashboard pages' first data, fetched on the server (docs/dashboard.md#first-render), is scoped as
// the management API's answers are: a page shows the session's workspace's data, nothing of another
// workspace's even when asked for it by id, and no more than the session's role may read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteMember, setupOwner, type SessionClient } from "../harness/members";
import { startStack, type Stack } from "../harness/stack";

let stack: Stack;
let owner: SessionClient;
let viewer: SessionClient;
/** An admin of the first workspace whose session is in a workspace of their own: pages follow the session's workspace. */
let outsider: SessionClient;
let source: { id: string; name: string; writeKey: string };
let destination: { id: string; name: string };
let bin: { id: string; name: string };

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  owner = await setupOwner(stack.app.url);
  viewer = await inviteMember(owner, "viewer@example.com", "viewer");
  outsider = await inviteMember(owner, "outsider@example.com", "admin");
  // Creating a workspace moves the outsider's session there: from then on, none of the first one is theirs.
  await outsider.post("/api/me/workspaces", { name: "Elsewhere" });
  source = await owner.post("/api/sources", { name: "Checkout service src" });
  destination = await owner.post("/api/destinations", {
    name: "Warehouse hook dst",
    urls: ["https://warehouse.example.com/hook"],
    headers: [],
    enabled: true,
    sourceIds: [source.id],
  });
  bin = await owner.post("/api/capture-bins", { name: "Debug bin cap" });
});
afterAll(async () => {
  await stack?.stop();
});

async function pageHtml(client: SessionClient, path: string) {
  const res = await fetch(stack.app.url + path, { headers: { cookie: client.cookie }, redirect: "manual" });
  return { status: res.status, html: await res.text() };
}

const MAIN_PAGES = () => [
  "/destinations",
  `/destinations/${destination.id}`,
  "/sources",
  "/log",
  `/log?destinationId=${destination.id}&view=attempts`,
  "/capture",
  `/capture/${bin.id}`,
];

describe("the pages' first data", () => {
  it("comes with the page for the session's own workspace", async () => {
    const list = await pageHtml(owner, "/destinations");
    expect(list.status).toBe(200);
    expect(list.html).toContain(destination.name);
    expect((await pageHtml(owner, "/sources")).html).toContain(source.name);
    expect((await pageHtml(owner, "/capture")).html).toContain(bin.name);
    expect((await pageHtml(owner, `/capture/${bin.id}`)).html).toContain(`/c/${bin.id}`);
    // The log's filter reaches its first page; one the API would refuse leaves the page to the browser, which shows the refusal.
    expect((await pageHtml(owner, `/log?destinationId=${destination.id}`)).status).toBe(200);
    expect((await pageHtml(owner, "/log?status=not-a-status&from=yesterday")).status).toBe(200);
  });

  it("holds nothing of another workspace, even on a page asked for by its id", async () => {
    for (const path of MAIN_PAGES()) {
      const { status, html } = await pageHtml(outsider, path);
      expect(status, path).toBe(200);
      for (const secret of [destination.name, source.name, bin.name, "warehouse.example.com", source.writeKey]) {
        expect(html.includes(secret), `${path} shows ${secret}`).toBe(false);
      }
    }
  });

  it("holds no more than the role may read: a viewer's pages carry no write key", async () => {
    // The owner's list carries the key, as GET /api/sources answers an owner; a viewer's does not.
    expect((await pageHtml(owner, "/sources")).html).toContain(source.writeKey);
    for (const path of MAIN_PAGES()) {
      const { status, html } = await pageHtml(viewer, path);
      expect(status, path).toBe(200);
      expect(html.includes(source.writeKey), `${path} shows the write key to a viewer`).toBe(false);
    }
    expect((await pageHtml(viewer, "/sources")).html).toContain(source.name);
  });

  it("is not fetched for a visitor without a session: the page sends them to log in", async () => {
    const res = await fetch(`${stack.app.url}/destinations/${destination.id}`, { redirect: "manual" });
    expect([307, 308]).toContain(res.status);
    expect(await res.text()).not.toContain(destination.name);
  });
});
