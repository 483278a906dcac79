/**
 * The ingest statement's message columns (docs/architecture.md#ingest-statement): one array
 * parameter per column and the payloads as one separated text. Whatever a client puts in an id or
 * a name — quotes, backslashes, commas, braces, the word NULL, line separators, emoji, the
 * separator's own character escaped in JSON — comes back from the columns exactly, and the payload
 * keeps the client's key order. Real processes: the ingest server, `next start` for the API, Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./harness/stack";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { createDestination, createSource, deliveriesByMessage, postTracking, type Db, type TestSource } from "./harness/tracking";

let ingestStack: IngestStack;
let ingest: IngestStack["ingest"];
let api: ApiClient;
let db: Db;
let source: TestSource;

beforeAll(async () => {
  ingestStack = await startIngestStack("statement");
  ({ ingest, api, db } = ingestStack);
  source = await createSource(api, "columns");
  await createDestination(db, { workspaceId: source.workspaceId, name: "hook", sourceIds: [source.id] });
});
afterAll(() => ingestStack?.stop());

const TRICKY = [
  'q"uote',
  "back\\slash",
  '\\"',
  "a,b",
  "{x}",
  " spaced ",
  "NULL",
  "null",
  "",
  "ls\u2028ps\u2029",
  "emoji 😀 é",
  "rs\u001ers",
];

describe("the ingest statement's columns", () => {
  it("store every id and name exactly as sent, and each payload with its key order", async () => {
    const batch = TRICKY.map((v, i) => ({
      type: "track",
      messageId: `id ${i} ${v}`,
      userId: v === "" ? `u${i}` : v,
      anonymousId: `anon ${v}`,
      event: `event ${v}`,
      timestamp: "2026-11-20T11:00:00.123+01:00",
      properties: { z: 1, a: { y: v, b: [v] } },
    }));
    const res = await postTracking(ingest.url, "/v1/batch", { batch, sentAt: "2026-11-20T10:00:01Z" }, { writeKey: source.writeKey });
    expect(res).toMatchObject({ status: 200, body: { success: true } });

    const { rows } = await db.query<{
      message_id: string;
      user_id: string;
      anonymous_id: string;
      event: string;
      timestamp: Date;
      original_timestamp: Date;
      sent_at: Date;
      payload_text: string;
    }>(
      `SELECT message_id, user_id, anonymous_id, event, "timestamp", original_timestamp, sent_at, payload::text AS payload_text
         FROM messages WHERE source_id = $1`,
      [source.id],
    );
    const byId = new Map(rows.map((r) => [r.message_id, r]));
    expect(rows).toHaveLength(TRICKY.length);
    TRICKY.forEach((v, i) => {
      const r = byId.get(`id ${i} ${v}`);
      expect(r, JSON.stringify(v)).toBeDefined();
      expect(r!.user_id).toBe(v === "" ? `u${i}` : v);
      expect(r!.anonymous_id).toBe(`anon ${v}`);
      expect(r!.event).toBe(`event ${v}`);
      expect(r!.original_timestamp.toISOString()).toBe("2026-11-20T10:00:00.123Z");
      // Corrected for the client's clock skew: received time − (sentAt − timestamp).
      expect(r!.timestamp.getTime()).toBeLessThan(Date.now());
      expect(r!.sent_at.toISOString()).toBe("2026-11-20T10:00:01.000Z");
      const payload = JSON.parse(r!.payload_text);
      expect(payload.properties).toEqual({ z: 1, a: { y: v, b: [v] } });
      expect(Object.keys(payload.properties)).toEqual(["z", "a"]);
      expect(payload.messageId).toBe(`id ${i} ${v}`);
    });
    // Every message routed to the one destination.
    const deliveries = await deliveriesByMessage(db, source.id);
    expect([...deliveries.values()].every((d) => d.length === 1)).toBe(true);
    expect(deliveries.size).toBe(TRICKY.length);
  });
});
