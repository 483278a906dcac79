/**
 * Seed conformance, round 2 (issue 13.2, 13.9), audiences: calls go in through `/v1/batch`, the
 * worker syncs the audience and delivers its identifies to a real receiver on 127.0.0.1.
 * - 13.9: one scope rule — members are users with data in the audience's sources; traits come from
 *   their unified profile; events count from the audience's sources (docs/audiences.md#scope).
 * - 13.2: each identify names its audience in `context.audience` {id, name, key}.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";
import { postTracking } from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let rx: Receiver;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  api = await stack.newWorkspace("audience-scope");
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});

async function send(writeKey: string, batch: object[]) {
  const res = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey });
  expect(res.body).toEqual({ success: true });
}

describe("audience scope and context", () => {
  it("a user identified only through another source does not join; traits come from the unified profile; identifies carry context.audience", async () => {
    const web = await api.post("/api/sources", { name: "Web" });
    const crm = await api.post("/api/sources", { name: "CRM" });
    // Web: u1 identifies there; u2 only tracks there; a4 browses anonymously.
    await send(web.writeKey, [
      { type: "identify", userId: "u1", traits: { plan: "pro" } },
      { type: "track", userId: "u2", event: "Viewed" },
      { type: "page", anonymousId: "a4", name: "Pricing" },
    ]);
    // CRM: the traits of u2 and u4 (joined to a4), and u3, who never used Web.
    await send(crm.writeKey, [
      { type: "identify", userId: "u2", traits: { plan: "pro" } },
      { type: "identify", userId: "u3", traits: { plan: "pro" } },
      { type: "identify", userId: "u4", anonymousId: "a4", traits: { plan: "pro" } },
    ]);
    const condition = { trait: "plan", op: "equals", value: "pro" };
    expect(await api.post("/api/audiences/preview", { condition, sourceIds: [web.id] })).toEqual({ count: 3 });
    expect(await api.post("/api/audiences/preview", { condition, sourceIds: [crm.id] })).toEqual({ count: 3 });

    const dest = await api.post("/api/destinations", { name: "Audience hook", urls: [`${rx.url}/hook`], headers: [], sourceIds: [] });
    const audience = await api.post("/api/audiences", {
      name: "Premium Users",
      sourceIds: [web.id],
      destinationIds: [dest.id],
      condition,
    });
    await waitFor(async () => rx.requests.length >= 3, { timeoutMs: 60_000, what: "the first sync's identifies" });
    const members = (await api.get(`/api/audiences/${audience.id}/members`)).members.map((m: { userId: string }) => m.userId);
    expect(members).toEqual(["u1", "u2", "u4"]);

    // Byte for byte: the identify with its audience in context (keys of context.audience in jsonb's order).
    const bodies = rx.requests.map((r) => r.body);
    expect(bodies).toHaveLength(3);
    const byUser = new Map(bodies.map((b) => [JSON.parse(b).userId as string, b]));
    expect([...byUser.keys()].sort()).toEqual(["u1", "u2", "u4"]);
    for (const [userId, body] of byUser) {
      const { timestamp, messageId, receivedAt } = JSON.parse(body);
      expect(body).toBe(
        JSON.stringify({
          version: 1,
          type: "identify",
          userId,
          traits: { premium_users: true },
          timestamp,
          context: { audience: { id: audience.id, key: "premium_users", name: "Premium Users" } },
          messageId,
          receivedAt,
        }),
      );
    }
  });
});
