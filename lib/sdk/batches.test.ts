import { describe, expect, it } from "vitest";
import { batchBody, MAX_BATCH_BYTES, splitIntoBatches } from "./batches";
import type { QueuedMessage } from "./message";

const message = (i: number, padBytes = 0): QueuedMessage => {
  const json = JSON.stringify({ type: "track", messageId: `m${i}`, pad: "x".repeat(padBytes) });
  return { messageId: `m${i}`, type: "track", json, bytes: Buffer.byteLength(json) };
};
const sentAt = new Date().toISOString();

describe("splitIntoBatches", () => {
  it("cuts by count, in order", () => {
    const batches = splitIntoBatches(
      Array.from({ length: 45 }, (_, i) => message(i)),
      20,
    );
    expect(batches.map((b) => b.length)).toEqual([20, 20, 5]);
    expect(batches.flat().map((m) => m.messageId)).toEqual(Array.from({ length: 45 }, (_, i) => `m${i}`));
  });

  it("cuts by size so that every body stays at or under 500,000 bytes", () => {
    const messages = Array.from({ length: 100 }, (_, i) => message(i, 32_000));
    const batches = splitIntoBatches(messages, 1000);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) {
      const body = batchBody(b, sentAt);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
      // Full batches are close to the limit: the next message would not have fitted.
      expect(Buffer.byteLength(body) + 32_050).toBeGreaterThan(b === batches.at(-1) ? 0 : MAX_BATCH_BYTES);
    }
    expect(batches.flat()).toEqual(messages);
  });

  it("fills a batch exactly to the byte limit", () => {
    const messages = [message(1, 100), message(2, 100)];
    const exact = Buffer.byteLength(batchBody(messages, sentAt));
    expect(splitIntoBatches(messages, 10, exact)).toHaveLength(1);
    expect(splitIntoBatches(messages, 10, exact - 1)).toHaveLength(2);
  });

  it("builds a JSON body of the messages with sentAt", () => {
    const body = JSON.parse(batchBody([message(1), message(2)], sentAt));
    expect(body).toEqual({ batch: [JSON.parse(message(1).json), JSON.parse(message(2).json)], sentAt });
    expect(JSON.parse(batchBody([], sentAt))).toEqual({ batch: [], sentAt });
  });
});
