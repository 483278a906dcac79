import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYLOAD_SEARCH_MAX_MESSAGES } from "../lib/request-log/contract";
import { startStack, type ApiClient, type Stack } from "./harness/stack";

/** GET /api/attempts?q=: text inside payloads, within a required window (docs/dashboard.md#search-inside-payloads). */
let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/** A message received at `when` with `payload`, and one attempt of it a second later. */
async function seed(workspaceId: string, when: Date, payload: unknown): Promise<string> {
  const id = randomUUID();
  const messageId = `m-${id}`;
  await db.query(
    `INSERT INTO messages (id, workspace_id, message_id, type, event, timestamp, received_at, payload)
     VALUES ($1, $2, $3, 'track', 'Order Completed', $4, $4, $5)`,
    [id, workspaceId, messageId, when, JSON.stringify(payload)],
  );
  await db.query(
    `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                           started_at, duration_ms, request_headers, request_body, outcome)
     VALUES ($1, $2, $3, $4, $5, 'track', 'https://example.com/hook', 1, $6, 12, '{}', '{}', 'success')`,
    [workspaceId, randomUUID(), randomUUID(), id, messageId, new Date(when.getTime() + 1000)],
  );
  return messageId;
}

const deep = (sku: string) => ({
  type: "track",
  event: "Order Completed",
  properties: { order: { lines: [{ product: { sku, name: "Kettle" } }] } },
});

describe("search inside payloads", () => {
  let inWindow: string;
  let outside: string;
  beforeAll(async () => {
    inWindow = await seed(a.workspaceId!, at(1), deep("SKU-Deep-4711"));
    await seed(a.workspaceId!, at(2), deep("SKU-other-1"));
    // The same value outside the window, and in another workspace inside it.
    outside = await seed(a.workspaceId!, at(60 * 24 * 2), deep("SKU-Deep-4711"));
    await seed(b.workspaceId!, at(1), deep("SKU-Deep-4711"));
    // LIKE's wildcards are searched as text: "%" alone matches nothing here.
    await seed(a.workspaceId!, at(3), deep("100%_sure"));
  });

  const window = (from: Date, to: Date) => `from=${from.toISOString()}&to=${to.toISOString()}`;
  const search = async (q: string, from = at(0), to = at(60)) =>
    ((await a.get(`/api/attempts?q=${encodeURIComponent(q)}&${window(from, to)}`)).attempts as { messageId: string }[]).map(
      (x) => x.messageId,
    );

  it("finds a message by a value deep in its properties, letter case ignored, only in the window and the workspace", async () => {
    expect(await search("sku-deep-4711")).toEqual([inWindow]);
    // The wider window holds the later one too, newest first.
    expect(await search("SKU-DEEP-4711", at(0), at(60 * 24 * 7))).toEqual([outside, inWindow]);
    // A window that misses it finds nothing.
    expect(await search("SKU-Deep-4711", at(30), at(60))).toEqual([]);
  });

  it("searches for the text itself, wildcards included, and combines with the other filters", async () => {
    expect(await search("%_sure")).toHaveLength(1);
    expect(await search("0%_s")).toHaveLength(1);
    expect(await search("%%")).toEqual([]);
    const failed = await a.get(`/api/attempts?q=Kettle&outcome=failed&${window(at(0), at(60))}`);
    expect(failed.attempts).toEqual([]);
    expect((await a.get(`/api/attempts?q=Kettle&${window(at(0), at(60))}`)).attempts).toHaveLength(3);
  });

  it("lists the attempts of the 1,000 newest matching messages only: the 1,001st newest is not read", async () => {
    // 1,001 matching messages a second apart, three days after the others, each with one attempt a second later.
    const base = at(60 * 24 * 3);
    await db.query(
      `INSERT INTO messages (id, workspace_id, message_id, type, event, timestamp, received_at, payload)
       SELECT gen_random_uuid(), $1, 'cap-' || i, 'track', 'Order Completed', $2::timestamptz + i * interval '1 second',
              $2::timestamptz + i * interval '1 second', json_build_object('type', 'track', 'properties', json_build_object('tag', 'Cap-Needle'))
         FROM generate_series(1, $3::int) AS i`,
      [a.workspaceId, base, PAYLOAD_SEARCH_MAX_MESSAGES + 1],
    );
    await db.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, outcome)
       SELECT workspace_id, gen_random_uuid(), gen_random_uuid(), id, message_id, 'track', 'https://example.com/hook', 1,
              received_at + interval '1 second', 12, '{}', '{}', 'success'
         FROM messages WHERE workspace_id = $1 AND message_id LIKE 'cap-%'`,
      [a.workspaceId],
    );
    const w = window(base, at(60 * 24 * 3 + 60));
    const found = async (messageId: string) =>
      (await a.get(`/api/attempts?q=cap-needle&messageId=${messageId}&${w}`)).attempts.map((x: { messageId: string }) => x.messageId);
    // The newest and the 1,000th newest are searched; the 1,001st newest, the oldest, is past the cap.
    expect(await found(`cap-${PAYLOAD_SEARCH_MAX_MESSAGES + 1}`)).toEqual([`cap-${PAYLOAD_SEARCH_MAX_MESSAGES + 1}`]);
    expect(await found("cap-2")).toEqual(["cap-2"]);
    expect(await found("cap-1")).toEqual([]);
    // without the search, the filter finds it: it is the cap that leaves it out
    expect((await a.get(`/api/attempts?messageId=cap-1&${w}`)).attempts).toHaveLength(1);
  });

  it("refuses a search without a window, a window over 7 days or a too-short text, naming the field", async () => {
    const refused = async (qs: string) => {
      const r = await a.request("GET", `/api/attempts?${qs}`);
      expect(r.status).toBe(422);
      return Object.keys(r.body.error.fields ?? {});
    };
    expect(await refused("q=Kettle")).toEqual(expect.arrayContaining(["from", "to"]));
    expect(await refused(`q=Kettle&from=${at(0).toISOString()}`)).toEqual(["to"]);
    expect(await refused(`q=Kettle&${window(at(0), at(60 * 24 * 8))}`)).toEqual(["to"]);
    expect(await refused(`q=Kettle&${window(at(60), at(0))}`)).toEqual(["to"]);
    expect(await refused(`q=K&${window(at(0), at(60))}`)).toEqual(["q"]);
    expect(await refused(`q=${"x".repeat(201)}&${window(at(0), at(60))}`)).toEqual(["q"]);
  });
});
