/**
 * The ingest server (issue 14, docs/architecture.md#processes): it answers /v1 itself and passes
 * everything else to the web app, so users keep one base URL — and when the web process dies,
 * the Tracking API keeps accepting and storing events. Real processes: `next start`, the ingest
 * process, @segment/analytics-node, Postgres.
 */
import { Analytics } from "@segment/analytics-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./harness/stack";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { createSource, postTracking, type Db, type TestSource } from "./harness/tracking";

let ingestStack: IngestStack;
let ingest: IngestStack["ingest"];
let api: ApiClient;
let db: Db;
let src: TestSource;

beforeAll(async () => {
  ingestStack = await startIngestStack("ingest");
  ({ ingest, api, db } = ingestStack);
  src = await createSource(api, "front");
});
afterAll(() => ingestStack?.stop());

const stored = async () =>
  (await db.query<{ message_id: string }>("SELECT message_id FROM messages WHERE source_id = $1 ORDER BY message_id", [src.id])).rows.map(
    (r) => r.message_id,
  );

async function sendWithClient(messageId: string): Promise<unknown> {
  const analytics = new Analytics({ writeKey: src.writeKey, host: ingest.url, flushAt: 1, maxRetries: 0 });
  const err = await new Promise((resolve) => analytics.track({ userId: "u1", event: "Signed Up", messageId }, resolve));
  await analytics.closeAndFlush({ timeout: 10_000 });
  return err;
}

describe("one base URL: the ingest server in front of the web app", () => {
  it("serves /v1 itself, with the Tracking API's answers, and passes the dashboard and its API through", async () => {
    expect(await sendWithClient("front-1")).toBeUndefined();
    expect(await stored()).toEqual(["front-1"]);
    // The same code as the web app's /v1: a rejected single message is a 400, a batch lists rejections.
    const bad = await postTracking(ingest.url, "/v1/track", { userId: "u1" }, { writeKey: src.writeKey });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "invalid_message" } } });
    expect(bad.headers.get("x-request-id")).toBeTruthy();
    const unauthorised = await postTracking(ingest.url, "/v1/batch", { batch: [] }, { writeKey: "nope" });
    expect(unauthorised.status).toBe(401);
    const tooLarge = await postTracking(ingest.url, "/v1/batch", `{"batch":[],"pad":"${"x".repeat(600 * 1024)}"}`, {
      writeKey: src.writeKey,
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.code).toBe("body_too_large");
    expect((await fetch(`${ingest.url}/v1/track`)).status).toBe(405);

    // Everything else is the web app's, headers and all: the API with its bearer token, the login page.
    const sources = await fetch(`${ingest.url}/api/sources`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(sources.status).toBe(200);
    expect((await sources.json()).sources.map((s: { id: string }) => s.id)).toContain(src.id);
    const page = await fetch(`${ingest.url}/sources`, { redirect: "manual" });
    expect(page.status).toBe(307);
    expect(page.headers.get("location")).toMatch(/\/login\?next=%2Fsources$/);
  });

  it("keeps accepting and storing events after the web process is killed", async () => {
    await ingestStack.stack.app.kill("SIGKILL");
    expect(await sendWithClient("after-web-died")).toBeUndefined();
    const batch = await postTracking(
      ingest.url,
      "/v1/batch",
      { batch: [{ type: "identify", userId: "u2", messageId: "batch-after" }] },
      { writeKey: src.writeKey },
    );
    expect(batch).toMatchObject({ status: 200, body: { success: true } });
    expect(await stored()).toEqual(["after-web-died", "batch-after", "front-1"]);
    // The dashboard is down, and says so; /v1 is not affected.
    const dashboard = await fetch(`${ingest.url}/api/sources`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(dashboard.status).toBe(502);
  });
});
