/**
 * The bad-input corpus: every way a request or a message can be wrong, each with its status, a
 * readable reason, and proof of what was and was not stored (messages, deliveries, debugger rows).
 */
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchOfBytes, postChunked } from "./harness/exact-bodies";
import { startStack, type ApiClient, type Stack } from "./harness/stack";
import { basic, createDestination, createSource, openDb, postTracking, type Db, type TestSource } from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let db: Db;
let source: TestSource;
let disabledSource: TestSource;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  api = await stack.newWorkspace("corpus");
  db = openDb(stack.databaseUrl);
  source = await createSource(api, "corpus");
  await createDestination(db, { workspaceId: source.workspaceId, name: "hook", sourceIds: [source.id] });
  disabledSource = await createSource(api, "disabled");
  await api.patch(`/api/sources/${disabledSource.id}`, { enabled: false });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const track = (extra: Record<string, unknown> = {}) => ({ type: "track", userId: "u1", event: "Clicked", ...extra });
const nest = (depth: number): unknown => {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = { v };
  return v;
};
/** A body with `depth` nested arrays, written as text (building it as objects would recurse). */
const deepArrayBody = (depth: number) =>
  `{"batch":[{"type":"track","userId":"u","event":"E","properties":{"a":${"[".repeat(depth)}${"]".repeat(depth)}}}]}`;
const bigBatch = (bytes: number) => JSON.stringify({ batch: [track({ properties: { pad: "x".repeat(bytes) } })] });

type Auth = "basic" | "none" | "unknown" | "disabled" | "body" | "bearer" | "empty-user";
type Case = {
  name: string;
  path?: string;
  body: unknown;
  headers?: Record<string, string>;
  auth?: Auth;
  status: number;
  /** Body-level refusal: the error code and a regex over its message. */
  error?: [string, RegExp];
  /** Per-message rejections (200): index → reason regex. */
  rejected?: Record<number, RegExp>;
  /** How many messages end up stored. */
  stored: number;
  /** The body's exact size in bytes, checked before it is sent. */
  bytes?: number;
  /** Sent without a Content-Length, so the server counts the bytes as they arrive. */
  chunked?: boolean;
};

// The limits (docs/tracking-api.md#limits), written out here so that a changed constant fails a test.
const BODY_LIMIT = 500 * 1024;
const BATCH_LIMIT = 2_500;
/** A body of exactly `bytes`, of 17 messages of about 30 KB each (each under the 32 KB message limit). */
const bodyOfBytes = (bytes: number, tag: string) => batchOfBytes(bytes, 17, (i) => track({ messageId: `${tag}-${i}` }));
const bodyLimitCases = (
  [
    ["one byte under 500 KB", BODY_LIMIT - 1],
    ["exactly 500 KB", BODY_LIMIT],
    ["one byte over 500 KB", BODY_LIMIT + 1],
  ] as const
).flatMap(([what, bytes]) =>
  [false, true].map(
    (chunked): Case => ({
      name: `a body of ${what} (${bytes.toLocaleString("en-US")} bytes)${chunked ? ", chunked without Content-Length" : ""}`,
      body: bodyOfBytes(bytes, `${bytes}-${chunked}`),
      bytes,
      chunked,
      ...(bytes > BODY_LIMIT
        ? { status: 400, error: ["body_too_large", /500 KB/] as [string, RegExp], stored: 0 }
        : { status: 200, stored: 17 }),
    }),
  ),
);

const cases: Case[] = [
  // ── the body as a whole: 400, nothing stored ──
  { name: "malformed JSON", body: '{"batch": [', status: 400, error: ["invalid_json", /not valid JSON/], stored: 0 },
  { name: "JSON with trailing garbage", body: '{"batch": []} trailing', status: 400, error: ["invalid_json", /not valid JSON/], stored: 0 },
  { name: "empty body", body: "", status: 400, error: ["invalid_json", /not valid JSON/], stored: 0 },
  { name: "body is an array", body: [track()], status: 400, error: ["invalid_body", /must be a JSON object, got an array/], stored: 0 },
  { name: "body is a string", body: '"hello"', status: 400, error: ["invalid_body", /must be a JSON object/], stored: 0 },
  { name: "body is null", body: "null", status: 400, error: ["invalid_body", /must be a JSON object, got null/], stored: 0 },
  { name: "batch is an object", body: { batch: track() }, status: 400, error: ["invalid_body", /batch must be an array/], stored: 0 },
  { name: "batch missing", body: { sentAt: new Date().toISOString() }, status: 400, error: ["invalid_body", /batch array/], stored: 0 },
  {
    name: "form-encoded content type",
    body: "batch=1",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    status: 400,
    error: ["unsupported_content_type", /application\/json/],
    stored: 0,
  },
  {
    name: "multipart content type",
    body: JSON.stringify({ batch: [track()] }),
    headers: { "content-type": "multipart/form-data; boundary=x" },
    status: 400,
    error: ["unsupported_content_type", /application\/json/],
    stored: 0,
  },
  {
    name: "XML content type",
    body: "<batch/>",
    headers: { "content-type": "text/xml" },
    status: 400,
    error: ["unsupported_content_type", /text\/xml/],
    stored: 0,
  },
  { name: "body over 500 KB", body: bigBatch(510 * 1024), status: 400, error: ["body_too_large", /500 KB/], stored: 0 },
  {
    name: "body over 500 KB, chunked without Content-Length",
    body: "stream:600000",
    status: 400,
    error: ["body_too_large", /500 KB/],
    stored: 0,
  },
  ...bodyLimitCases,
  { name: "2,500 messages (the limit)", body: { batch: Array.from({ length: BATCH_LIMIT }, () => track()) }, status: 200, stored: 2_500 },
  { name: "2,499 messages", body: { batch: Array.from({ length: BATCH_LIMIT - 1 }, () => track()) }, status: 200, stored: 2_499 },
  {
    name: "2,501 messages",
    body: { batch: Array.from({ length: 2501 }, () => track()) },
    status: 400,
    error: ["too_many_messages", /2,501 messages; the limit is 2,500/],
    stored: 0,
  },
  {
    name: "non-UTF-8 bytes",
    body: Buffer.concat([Buffer.from('{"batch":[{"type":"track","userId":"caf'), Buffer.from([0xe9]), Buffer.from('","event":"E"}]}')]),
    status: 400,
    error: ["invalid_utf8", /UTF-8/],
    stored: 0,
  },
  {
    name: "gzip declared, not gzip",
    body: JSON.stringify({ batch: [track()] }),
    headers: { "content-encoding": "gzip" },
    status: 400,
    error: ["invalid_body", /gzip/],
    stored: 0,
  },
  {
    name: "unsupported content encoding",
    body: JSON.stringify({ batch: [track()] }),
    headers: { "content-encoding": "br" },
    status: 400,
    error: ["unsupported_encoding", /br/],
    stored: 0,
  },
  {
    name: "invalid batch sentAt",
    body: { batch: [track()], sentAt: "half past ten" },
    status: 400,
    error: ["invalid_body", /sentAt "half past ten" is not a valid ISO 8601/],
    stored: 0,
  },
  {
    name: "batch context not an object",
    body: { batch: [track()], context: "web" },
    status: 400,
    error: ["invalid_body", /context must be a JSON object/],
    stored: 0,
  },
  {
    name: "single call body is an array",
    path: "/v1/track",
    body: [track()],
    status: 400,
    error: ["invalid_body", /must be a JSON object/],
    stored: 0,
  },
  {
    name: "gzip bomb over 500 KB inflated",
    body: zlib.gzipSync(bigBatch(600 * 1024)),
    headers: { "content-encoding": "gzip" },
    status: 400,
    error: ["body_too_large", /500 KB/],
    stored: 0,
  },
  // ── write keys: 401, nothing stored ──
  {
    name: "missing write key",
    body: { batch: [track()] },
    auth: "none",
    status: 401,
    error: ["unauthorized", /Missing write key/],
    stored: 0,
  },
  {
    name: "unknown write key (Basic)",
    body: { batch: [track()] },
    auth: "unknown",
    status: 401,
    error: ["unauthorized", /Unknown write key/],
    stored: 0,
  },
  {
    name: "unknown write key (body)",
    body: { batch: [track()], writeKey: "nope-nope-nope" },
    auth: "none",
    status: 401,
    error: ["unauthorized", /Unknown write key/],
    stored: 0,
  },
  {
    name: "disabled source's write key",
    body: { batch: [track()] },
    auth: "disabled",
    status: 401,
    error: ["unauthorized", /disabled/],
    stored: 0,
  },
  {
    name: "Bearer instead of Basic",
    body: { batch: [track()] },
    auth: "bearer",
    status: 401,
    error: ["unauthorized", /Missing write key/],
    stored: 0,
  },
  {
    name: "Basic with an empty user name",
    body: { batch: [track()] },
    auth: "empty-user",
    status: 401,
    error: ["unauthorized", /Missing write key/],
    stored: 0,
  },
  // ── one message wrong: rejected alone, listed in the 200 ──
  {
    name: "track without event",
    body: { batch: [track({ event: undefined })] },
    status: 200,
    rejected: { 0: /track requires an event name/ },
    stored: 0,
  },
  {
    name: "track with an empty event",
    body: { batch: [track({ event: "" })] },
    status: 200,
    rejected: { 0: /track requires an event name/ },
    stored: 0,
  },
  {
    name: "no userId and no anonymousId",
    body: { batch: [track({ userId: undefined }), track()] },
    status: 200,
    rejected: { 0: /userId or anonymousId is required/ },
    stored: 1,
  },
  {
    name: "group without groupId",
    body: { batch: [{ type: "group", userId: "u" }] },
    status: 200,
    rejected: { 0: /group requires a groupId/ },
    stored: 0,
  },
  {
    name: "alias without previousId",
    body: { batch: [{ type: "alias", userId: "u" }] },
    status: 200,
    rejected: { 0: /alias requires a previousId/ },
    stored: 0,
  },
  {
    name: "unknown type",
    body: { batch: [track(), { type: "purchase", userId: "u" }] },
    status: 200,
    rejected: { 1: /unknown type "purchase"/ },
    stored: 1,
  },
  { name: "type missing", body: { batch: [{ userId: "u", event: "E" }] }, status: 200, rejected: { 0: /type is missing/ }, stored: 0 },
  {
    name: "userId is an object",
    body: { batch: [track({ userId: { id: 1 } })] },
    status: 200,
    rejected: { 0: /userId must be a string, got an object/ },
    stored: 0,
  },
  { name: "event is a number", body: { batch: [track({ event: 12 })] }, status: 200, rejected: { 0: /event must be a string/ }, stored: 0 },
  {
    name: "properties is an array",
    body: { batch: [track({ properties: [1, 2] })] },
    status: 200,
    rejected: { 0: /properties must be a JSON object, got an array/ },
    stored: 0,
  },
  {
    name: "traits is a string",
    body: { batch: [{ type: "identify", userId: "u", traits: "vip" }] },
    status: 200,
    rejected: { 0: /traits must be a JSON object/ },
    stored: 0,
  },
  {
    name: "context is a number",
    body: { batch: [track({ context: 5 })] },
    status: 200,
    rejected: { 0: /context must be a JSON object/ },
    stored: 0,
  },
  {
    name: "integrations is a string",
    body: { batch: [track({ integrations: "all" })] },
    status: 200,
    rejected: { 0: /integrations must be a JSON object/ },
    stored: 0,
  },
  {
    name: "timestamp is not a date",
    body: { batch: [track({ timestamp: "yesterday" })] },
    status: 200,
    rejected: { 0: /timestamp "yesterday" is not a valid ISO 8601/ },
    stored: 0,
  },
  {
    name: "timestamp on 30 February",
    body: { batch: [track({ timestamp: "2026-02-30T10:00:00Z" })] },
    status: 200,
    rejected: { 0: /is not a valid ISO 8601/ },
    stored: 0,
  },
  {
    name: "timestamp as epoch number",
    body: { batch: [track({ timestamp: 1795277816 })] },
    status: 200,
    rejected: { 0: /timestamp must be an ISO 8601 string/ },
    stored: 0,
  },
  {
    name: "message sentAt invalid",
    body: { batch: [track({ sentAt: "2026-11-21T25:00:00Z" })] },
    status: 200,
    rejected: { 0: /sentAt/ },
    stored: 0,
  },
  {
    name: "message over 32 KB beside a valid one",
    body: { batch: [track({ properties: { pad: "x".repeat(33 * 1024) } }), track()] },
    status: 200,
    rejected: { 0: /the limit is 32 KB per message/ },
    stored: 1,
  },
  {
    name: "huge properties in a single call",
    path: "/v1/track",
    body: track({ properties: { list: Array.from({ length: 5000 }, (_, i) => `item-${i}`) } }),
    // A single-message endpoint refuses its rejected message with a 400 the client reports (issue 13.3).
    status: 400,
    error: ["invalid_message", /32 KB/],
    stored: 0,
  },
  {
    name: "properties nested 100 levels",
    body: { batch: [track({ properties: nest(100) })] },
    status: 200,
    rejected: { 0: /nested \d+ levels deep; the limit is 64/ },
    stored: 0,
  },
  {
    name: "properties nested 150,000 levels",
    body: deepArrayBody(150_000),
    status: 200,
    rejected: { 0: /nested more than 64 levels/ },
    stored: 0,
  },
  { name: "messageId of exactly 100 characters", body: { batch: [track({ messageId: "a".repeat(100) })] }, status: 200, stored: 1 },
  { name: "messageId of 99 characters", body: { batch: [track({ messageId: "b".repeat(99) })] }, status: 200, stored: 1 },
  {
    name: "messageId over 100 characters",
    body: { batch: [track({ messageId: "m".repeat(101) })] },
    status: 200,
    rejected: { 0: /messageId is 101 characters; the limit is 100/ },
    stored: 0,
  },
  {
    name: "messageId is an object",
    body: { batch: [track({ messageId: { id: 1 } })] },
    status: 200,
    rejected: { 0: /messageId must be a string/ },
    stored: 0,
  },
  {
    name: "userId over 512 bytes",
    body: { batch: [track({ userId: "é".repeat(300) })] },
    status: 200,
    rejected: { 0: /userId is longer than 512 bytes/ },
    stored: 0,
  },
  {
    name: "NUL character in a property",
    body: '{"batch":[{"type":"track","userId":"u","event":"E","properties":{"x":"a\\u0000b"}}]}',
    status: 200,
    rejected: { 0: /NUL character/ },
    stored: 0,
  },
  {
    name: "lone surrogate escape",
    body: '{"batch":[{"type":"track","userId":"u","event":"E","properties":{"x":"\\ud800"}}]}',
    status: 200,
    rejected: { 0: /unpaired UTF-16 surrogate/ },
    stored: 0,
  },
  {
    name: "message is a number",
    body: { batch: [5, track()] },
    status: 200,
    rejected: { 0: /message must be a JSON object, got number 5/ },
    stored: 1,
  },
  {
    name: "single track without event",
    path: "/v1/track",
    body: { userId: "u" },
    status: 400,
    error: ["invalid_message", /^The message was rejected: track requires an event name$/],
    stored: 0,
  },
  {
    name: "mixed batch keeps the valid ones",
    body: { batch: [track(), { type: "identify" }, track(), { type: "group", userId: "u" }, track()] },
    status: 200,
    rejected: { 1: /userId or anonymousId/, 3: /groupId/ },
    stored: 3,
  },
  // ── accepted as is ──
  { name: "batch null (analytics-go)", body: { batch: null }, status: 200, stored: 0 },
  { name: "empty batch", body: { batch: [] }, status: 200, stored: 0 },
  { name: "writeKey in the body", body: { batch: [track()], writeKey: "@source" }, auth: "none", status: 200, stored: 1 },
  {
    name: "text/plain (browser beacon)",
    body: JSON.stringify({ batch: [track()] }),
    headers: { "content-type": "text/plain;charset=UTF-8" },
    status: 200,
    stored: 1,
  },
  { name: "no content type", body: JSON.stringify({ batch: [track()] }), headers: { "content-type": "" }, status: 200, stored: 1 },
  {
    name: "gzip body",
    body: zlib.gzipSync(JSON.stringify({ batch: [track(), track()] })),
    headers: { "content-encoding": "gzip" },
    status: 200,
    stored: 2,
  },
  {
    name: "UTF-8 byte order mark",
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ batch: [track()] }))]),
    status: 200,
    stored: 1,
  },
  {
    name: "duplicate messageId inside one batch",
    body: { batch: [track({ messageId: "same-in-batch" }), track({ messageId: "same-in-batch", event: "Second" })] },
    status: 200,
    stored: 1,
  },
];

async function counts() {
  const { rows } = await db.query<{ messages: number; calls: number; deliveries: number }>(
    `SELECT (SELECT count(*) FROM messages WHERE source_id = $1)::int AS messages,
            (SELECT count(*) FROM source_calls WHERE source_id = $1)::int AS calls,
            (SELECT count(*) FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.source_id = $1)::int AS deliveries`,
    [source.id],
  );
  return rows[0];
}

function authHeader(auth: Auth): Record<string, string> {
  switch (auth) {
    case "basic":
      return { authorization: basic(source.writeKey) };
    case "unknown":
      return { authorization: basic("not-a-real-write-key") };
    case "disabled":
      return { authorization: basic(disabledSource.writeKey) };
    case "bearer":
      return { authorization: `Bearer ${source.writeKey}` };
    case "empty-user":
      return { authorization: `Basic ${Buffer.from(":").toString("base64")}` };
    default:
      return {};
  }
}

async function send(c: Case) {
  const headers = { "content-type": "application/json", ...authHeader(c.auth ?? "basic"), ...c.headers };
  if (headers["content-type"] === "") delete (headers as Record<string, string>)["content-type"];
  let body: unknown = c.body;
  if (typeof body === "object" && body !== null && !(body instanceof Uint8Array))
    body = JSON.stringify(body).replace('"@source"', JSON.stringify(source.writeKey));
  if (c.chunked) return postChunked(stack.app.url + (c.path ?? "/v1/batch"), body as string, headers);
  if (typeof body === "string" && body.startsWith("stream:")) {
    const total = Number(body.slice(7));
    let sent = 0;
    const stream = new ReadableStream({
      pull(ctrl) {
        if (sent >= total) return ctrl.close();
        sent += 16_384;
        ctrl.enqueue(new Uint8Array(16_384).fill(0x20));
      },
    });
    const res = await fetch(stack.app.url + (c.path ?? "/v1/batch"), {
      method: "POST",
      headers,
      body: stream,
      duplex: "half",
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  }
  return postTracking(stack.app.url, c.path ?? "/v1/batch", body, { headers });
}

describe("bad-input corpus", () => {
  it(`has at least 40 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    if (c.bytes !== undefined) expect(Buffer.byteLength(c.body as string, "utf8")).toBe(c.bytes);
    const before = await counts();
    const res = await send(c);
    expect(res.status).toBe(c.status);
    const after = await counts();
    expect(after.messages - before.messages).toBe(c.stored);
    // Stored messages are routed to the connected destination; nothing else is.
    expect(after.deliveries - before.deliveries).toBe(c.stored);

    if (c.error) {
      const error = { code: c.error[0], message: expect.stringMatching(c.error[1]) };
      // Top level for Segment's libraries (analytics-python reads body["code"]), and under `error`.
      expect(res.body).toEqual({ success: false, ...error, error });
      // A refused request from a known source shows in its debugger; an unauthenticated one cannot.
      expect(after.calls - before.calls).toBe((c.auth ?? "basic") === "basic" && c.status === 400 ? 1 : 0);
      return;
    }
    const expected = Object.entries(c.rejected ?? {});
    if (expected.length === 0) expect(res.body).toEqual({ success: true });
    else {
      expect(res.body.success).toBe(true);
      expect(res.body.rejected.map((r: { index: number }) => r.index)).toEqual(expected.map(([i]) => Number(i)));
      for (const [i, reason] of expected) {
        const r = res.body.rejected.find((x: { index: number }) => x.index === Number(i));
        expect(r.reason).toMatch(reason);
        expect(r).toHaveProperty("messageId");
      }
    }
    expect(after.calls - before.calls).toBe(expected.length);
  });
});

describe("exact dedupe across requests", () => {
  it("acknowledges a re-sent messageId with 200 and neither stores nor routes it again", async () => {
    const before = await counts();
    const first = await postTracking(stack.app.url, "/v1/track", track({ messageId: "once-only", properties: { n: 1 } }), {
      writeKey: source.writeKey,
    });
    const again = await postTracking(
      stack.app.url,
      "/v1/batch",
      { batch: [track({ messageId: "once-only", properties: { n: 2 } })] },
      { writeKey: source.writeKey },
    );
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual({ success: true });
    const after = await counts();
    expect(after.messages - before.messages).toBe(1);
    expect(after.deliveries - before.deliveries).toBe(1);
    const { rows } = await db.query("SELECT payload FROM messages WHERE source_id = $1 AND message_id = 'once-only'", [source.id]);
    expect(rows[0].payload.properties).toEqual({ n: 1 });
  });

  it("stores and routes each message once when retries race the original, in any order", async () => {
    const before = await counts();
    const batch = Array.from({ length: 300 }, (_, i) => track({ messageId: `race-${i}` }));
    const orders = [batch, [...batch].reverse(), [...batch.slice(150), ...batch.slice(0, 150)], batch];
    const responses = await Promise.all(
      orders.map((b) => postTracking(stack.app.url, "/v1/batch", { batch: b }, { writeKey: source.writeKey })),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const after = await counts();
    expect(after.messages - before.messages).toBe(300);
    expect(after.deliveries - before.deliveries).toBe(300);
  });

  it("gives each new delivery exactly one deliver job, and a duplicate's none, in the statement that stores the batch", async () => {
    const deliveryJobs = async () =>
      (
        await db.query<{ id: string }>(
          `SELECT jsonb_array_elements_text(data->'deliveryIds') AS id FROM pgboss.job WHERE name = 'deliver' AND created_on >= now() - interval '1 hour'`,
        )
      ).rows.map((r) => r.id);
    const jobsBefore = new Set(await deliveryJobs());
    await postTracking(stack.app.url, "/v1/track", track({ messageId: "job-old" }), { writeKey: source.writeKey });
    const batch = [track({ messageId: "job-old" }), ...Array.from({ length: 150 }, (_, i) => track({ messageId: `job-${i}` }))];
    const res = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey: source.writeKey });
    expect(res.status).toBe(200);
    const { rows: deliveries } = await db.query<{ id: string; message_row_id: string }>(
      `SELECT d.id, d.message_row_id FROM deliveries d JOIN messages m ON m.id = d.message_row_id
        WHERE m.source_id = $1 AND m.message_id LIKE 'job-%' ORDER BY m.received_at, m.id`,
      [source.id],
    );
    expect(deliveries).toHaveLength(151);
    const newJobIds = (await deliveryJobs()).filter((id) => !jobsBefore.has(id));
    // Every delivery once across the jobs (100 ids per job), nothing else.
    expect([...newJobIds].sort()).toEqual(deliveries.map((d) => d.id).sort());
    // Row ids are UUIDv7, time-ordered (docs/architecture.md#row-ids).
    for (const d of deliveries) {
      expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
      expect(d.message_row_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
    }
    expect(deliveries[0].message_row_id < deliveries[1].message_row_id).toBe(true);
  });

  it("does not apply a re-sent identify's traits to the profile: a duplicate changes nothing", async () => {
    const identify = (plan: string) => ({ type: "identify", userId: "dup-user", messageId: "dup-identify", traits: { plan } });
    expect((await postTracking(stack.app.url, "/v1/identify", identify("first"), { writeKey: source.writeKey })).status).toBe(200);
    const again = await postTracking(stack.app.url, "/v1/batch", { batch: [identify("second")] }, { writeKey: source.writeKey });
    expect(again.status).toBe(200);
    const { rows } = await db.query("SELECT traits FROM profiles WHERE workspace_id = $1 AND user_id = 'dup-user'", [source.workspaceId]);
    expect(rows.map((r) => r.traits)).toEqual([{ plan: "first" }]);
  });

  it("wakes the deliver workers once the batch is committed", async () => {
    const listener = await db.connect();
    try {
      const channel = (await listener.query<{ c: string }>("SELECT ('pgboss_' || left(encode(sha224('pgboss'::bytea), 'hex'), 24)) AS c"))
        .rows[0].c;
      await listener.query(`LISTEN ${channel}`);
      const woken = new Promise<string>((resolve) =>
        listener.on("notification", (n) => {
          if (n.payload === "deliver") resolve(n.payload);
        }),
      );
      const res = await postTracking(stack.app.url, "/v1/track", track({ messageId: "wake-me" }), { writeKey: source.writeKey });
      expect(res.status).toBe(200);
      expect(await woken).toBe("deliver");
      await listener.query(`UNLISTEN ${channel}`);
    } finally {
      listener.removeAllListeners("notification");
      listener.release();
    }
  });
});
