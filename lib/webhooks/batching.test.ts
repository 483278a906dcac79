import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { batchBody, batchProblem, batchSettingsSchema, BATCH_BODY_LIMIT, carve, fill, storedBatch } from "./batching";
import { standardKey, standardSignature, xSignature } from "./signing";

const issues = (v: unknown) => {
  const r = batchSettingsSchema.safeParse(v);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]));
};

describe("batch settings (docs/request-shape.md#batching)", () => {
  it("takes size 1–1000 and maxWaitMs 100–30000, refusing others at the field with the reason", () => {
    expect(issues({ size: 1, maxWaitMs: 100 })).toEqual({});
    expect(issues({ size: 1000, maxWaitMs: 30_000 })).toEqual({});
    expect(issues({ size: 0, maxWaitMs: 99 })).toEqual({ size: "At least 1 event", maxWaitMs: "At least 100 ms" });
    expect(issues({ size: 1001, maxWaitMs: 30_001 })).toEqual({ size: "At most 1000 events", maxWaitMs: "At most 30000 ms (30 s)" });
    expect(issues({ size: 2.5, maxWaitMs: "1000" })).toEqual({
      size: "A whole number of events",
      maxWaitMs: "Enter a number of milliseconds",
    });
  });

  it("reads a stored value back, or none when it no longer parses", () => {
    expect(storedBatch({ size: 5, maxWaitMs: 500 })).toEqual({ size: 5, maxWaitMs: 500 });
    expect(storedBatch(null)).toBeNull();
    expect(storedBatch({ size: 5000 })).toBeNull();
  });

  it("refuses URL templates beside batching, and nothing else", () => {
    expect(batchProblem(["https://a.example/u/{{userId}}"], { size: 5, maxWaitMs: 500 })).toMatch(/cannot hold/);
    expect(batchProblem(["https://a.example/u/{{userId}}"], null)).toBeNull();
    expect(batchProblem(["https://a.example/hook"], { size: 5, maxWaitMs: 500 })).toBeNull();
  });

  it("the body is the JSON array of the parts; the limit is the Tracking API's 500 KB", () => {
    expect(batchBody(['{"a":1}', '{"b":2}'])).toBe('[{"a":1},{"b":2}]');
    expect(batchBody([])).toBe("[]");
    expect(BATCH_BODY_LIMIT).toBe(512_000);
  });

  it("the worked example of docs/request-shape.md#batch-signatures signs the whole body", () => {
    const parts = [
      '{"version":1,"type":"track","userId":"u_1","event":"Order Completed","properties":{"total":42.5},"timestamp":"2026-11-21T15:05:50.000Z","context":{},"messageId":"m_1","receivedAt":"2026-11-21T15:05:50.120Z"}',
      '{"version":1,"type":"identify","userId":"u_2","traits":{"plan":"pro"},"timestamp":"2026-11-21T15:05:51.000Z","context":{},"messageId":"m_2","receivedAt":"2026-11-21T15:05:51.040Z"}',
    ];
    const body = batchBody(parts);
    expect(Buffer.byteLength(body)).toBe(390);
    expect(xSignature("s3cr3t", body)).toBe("dbd3d8709ecd8f8261d95e7d4987045070ef645c");
    expect(crypto.createHmac("sha1", "s3cr3t").update(Buffer.from(body)).digest("hex")).toBe(xSignature("s3cr3t", body));
    const key = standardKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(standardSignature(key, "batch_0192f3a4-5b6c-7d8e-9f01-23456789abcd", 1795273551, body)).toBe(
      "v1,vX0Q5iisda5fifobijfU8ERjotez1YHtK3ZSCca2lc0=",
    );
  });
});

describe("a worker's share of a destination's events: the whole batches it fills, and the rest", () => {
  const events = (n: number, bytes = 600) => Array.from({ length: n }, (_, i) => ({ i, bytes }));
  const sizes = (r: { full: { members: { i: number }[] }[]; rest: { i: number }[] }) => ({
    full: r.full.map((b) => b.members.length),
    rest: r.rest.length,
  });

  it("cuts whole batches of `size` in order; fewer than a batch are left to join the open one", () => {
    expect(sizes(carve(events(500), 100))).toEqual({ full: [100, 100, 100, 100, 100], rest: 0 });
    expect(sizes(carve(events(250), 100))).toEqual({ full: [100, 100], rest: 50 });
    expect(sizes(carve(events(99), 100))).toEqual({ full: [], rest: 99 });
    expect(sizes(carve(events(3), 1))).toEqual({ full: [1, 1, 1], rest: 0 });
    expect(sizes(carve([], 10))).toEqual({ full: [], rest: 0 });
    const r = carve(events(250), 100);
    expect([...r.full.flatMap((b) => b.members), ...r.rest].map((e) => e.i)).toEqual(events(250).map((e) => e.i));
  });

  it("closes a batch early rather than pass the body limit, counting the brackets and commas", () => {
    // 100,000-byte parts: five fit (2 + 5 × 100,000 + 4 commas), a sixth would pass 512,000
    const big = events(12, 100_000);
    const r = carve(big, 1000);
    expect(sizes(r)).toEqual({ full: [5, 5], rest: 2 });
    for (const b of r.full) {
      expect(2 + b.members.reduce((n, e) => n + e.bytes, 0) + (b.members.length - 1)).toBeLessThanOrEqual(BATCH_BODY_LIMIT);
      expect(b.bytes).toBe(2 + b.members.reduce((n, e) => n + e.bytes, 0) + (b.members.length - 1));
    }
    // exactly at the limit is whole; one event over it alone is a batch of its own
    expect(
      sizes(
        carve(
          [
            { i: 0, bytes: BATCH_BODY_LIMIT - 2 },
            { i: 1, bytes: 10 },
          ],
          1000,
        ),
      ),
    ).toEqual({ full: [1], rest: 1 });
    expect(
      sizes(
        carve(
          [
            { i: 0, bytes: 10 },
            { i: 1, bytes: BATCH_BODY_LIMIT + 1 },
            { i: 2, bytes: 10 },
          ],
          1000,
        ),
      ),
    ).toEqual({
      full: [1, 1],
      rest: 1,
    });
  });

  it("counts the comma before an event: a body that would be 512,001 bytes closes first, at the byte, new or open", () => {
    // Real parts, as JSON texts of given UTF-8 lengths; the body is what batchBody builds from them.
    const part = (bytes: number, i: number) => {
      const text = `"${"é".repeat(Math.floor((bytes - 2) / 2))}${"x".repeat((bytes - 2) % 2)}"`;
      expect(Buffer.byteLength(text)).toBe(bytes);
      return { i, text, bytes };
    };
    // [ + 511,987 + , + 11 + ] is 512,001 bytes: one past the limit by its comma alone.
    const first = BATCH_BODY_LIMIT - 13;
    const pair = [part(first, 0), part(11, 1)];
    const r = fill(pair, 1000);
    expect(r.map((b) => b.members.map((e) => e.i))).toEqual([[0], [1]]);
    for (const b of r) {
      const body = batchBody(b.members.map((e) => e.text));
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BATCH_BODY_LIMIT);
      expect(b.bytes).toBe(Buffer.byteLength(body));
    }
    // one byte less and the two make exactly 512,000 bytes: together
    const exact = [part(first, 0), part(10, 1)];
    const together = fill(exact, 1000);
    expect(together.map((b) => b.members.length)).toEqual([2]);
    expect(Buffer.byteLength(batchBody(exact.map((e) => e.text)))).toBe(BATCH_BODY_LIMIT);
    expect(together[0].bytes).toBe(BATCH_BODY_LIMIT);
    expect(together[0].full).toBe(true);
    // the same through an open batch holding the first: the second does not join it
    const open = fill([part(11, 1)], 1000, { events: 1, bytes: 2 + first });
    expect(open.map((b) => [b.members.length, b.full])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(fill([part(10, 1)], 1000, { events: 1, bytes: 2 + first }).map((b) => [b.members.length, b.bytes, b.full])).toEqual([
      [1, BATCH_BODY_LIMIT, true],
    ]);
  });

  it("continues an open batch first: it closes when they fill it, and the rest open the next", () => {
    const r = fill(events(30), 50, { events: 40, bytes: 40 * 601 + 1 });
    expect(r.map((b) => [b.members.length, b.events, b.full])).toEqual([
      [10, 50, true],
      [20, 20, false],
    ]);
    expect(r[0].bytes).toBe(50 * 601 + 1);
    // an open batch the next event would take past the limit closes taking none
    const nearly = fill(events(1), 50, { events: 1, bytes: BATCH_BODY_LIMIT - 100 });
    expect(nearly.map((b) => [b.members.length, b.full])).toEqual([
      [0, true],
      [1, false],
    ]);
  });
});
