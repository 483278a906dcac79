/**
 * Cutting queued messages into request bodies, pure. Messages are kept as JSON strings, so a body is
 * built by concatenation and its size is known before it is built.
 */
import type { QueuedMessage } from "./message";

/** Under 500 KB whether the server counts a KB as 1000 or 1024 bytes. */
export const MAX_BATCH_BYTES = 500_000;

/** `{"batch":[],"sentAt":"<24-char ISO>"}` — fixed bytes around the messages. */
const ENVELOPE_BYTES = '{"batch":[],"sentAt":""}'.length + 24;

/** Splits messages, in order, into batches of at most `maxCount` messages and `maxBytes` bytes of body. */
export function splitIntoBatches(messages: QueuedMessage[], maxCount: number, maxBytes = MAX_BATCH_BYTES): QueuedMessage[][] {
  const batches: QueuedMessage[][] = [];
  let current: QueuedMessage[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const message of messages) {
    const added = message.bytes + (current.length > 0 ? 1 : 0); // the comma
    if (current.length > 0 && (current.length >= maxCount || bytes + added > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = ENVELOPE_BYTES;
    }
    bytes += message.bytes + (current.length > 0 ? 1 : 0);
    current.push(message);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function batchBody(messages: QueuedMessage[], sentAt: string): string {
  let body = '{"batch":[';
  for (let i = 0; i < messages.length; i++) body += (i > 0 ? "," : "") + messages[i].json;
  return `${body}],"sentAt":"${sentAt}"}`;
}
