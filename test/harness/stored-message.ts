import type { StoredMessage } from "../../lib/webhooks/payload";

/** A stored message as the worker loads it, with fixed columns (ids, times) the tests' expected bodies spell out. */
export const storedMessage = (type: string, payload: Record<string, unknown>, extra: Partial<StoredMessage> = {}): StoredMessage => ({
  type,
  messageId: "m-1",
  userId: "u-1",
  anonymousId: "a-1",
  timestamp: "2026-11-21T15:05:50.000Z",
  receivedAt: "2026-11-21T15:05:51.123Z",
  sentAt: "2026-11-21T15:05:50.500Z",
  payload,
  ...extra,
});
