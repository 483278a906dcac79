import "server-only";
/** The Tracking API's limits (docs/tracking-api.md#limits); clients split their batches by the same numbers. */
export const MAX_MESSAGE_BYTES = 32 * 1024;
export const MAX_BODY_BYTES = 500 * 1024;
export const MAX_BATCH_MESSAGES = 2_500;
export const MAX_MESSAGE_ID_CHARS = 100;
/**
 * userId, anonymousId, event, groupId, previousId: these land in btree indexes whose entries
 * must stay under ~2.7 KB, and one oversized value would fail the whole batch's insert.
 */
export const MAX_ID_BYTES = 512;
/** Deeper JSON than this is refused per message: Postgres' jsonb parser has a stack limit too. */
export const MAX_JSON_DEPTH = 64;

export const MESSAGE_TYPES = ["identify", "track", "page", "screen", "group", "alias"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export const isMessageType = (t: unknown): t is MessageType => typeof t === "string" && (MESSAGE_TYPES as readonly string[]).includes(t);

export const kb = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString("en-US")} KB`;
