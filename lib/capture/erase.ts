import "server-only";
import type pg from "pg";
import { webhookIdOf } from "../webhooks/request";
import { batchWebhookId } from "../delivery/batches";

/**
 * A deletion request's part in capture URLs (docs/deletions.md#every-store), on its transaction:
 * the workspace's captured requests that carry the user's events are deleted whole. A captured request
 * carries them when its `webhook-id` is one of the erased messages' or of a batch that held them
 * (docs/signing.md), or when its body, read as JSON, holds an event of the user's (carriesUser). A
 * body that is not JSON (cut at the stored 1 MB, or any other bytes) goes when it holds one of their
 * values as a JSON string at all.
 */
export async function eraseFromCaptureBins(
  client: pg.PoolClient,
  opts: { workspaceId: string; userId: string; anonymousIds: string[]; messageRowIds: string[]; messageIds: string[] },
): Promise<number> {
  const { workspaceId, userId, anonymousIds, messageRowIds, messageIds } = opts;
  const { rows: batches } = await client.query<{ id: string }>(
    `SELECT DISTINCT m.batch_id AS id FROM deliveries d JOIN delivery_batch_members m ON m.delivery_id = d.id
      WHERE d.message_row_id = ANY($1::uuid[])`,
    [messageRowIds],
  );
  const webhookIds = [...messageRowIds.map(webhookIdOf), ...batches.map((b) => batchWebhookId(b.id))];
  // Each value as the JSON string it is in a body; Postgres finds the bytes (a capture URL holds at
  // most CAPTURE_LIMITS.workspaceBytes per workspace), and only the requests found are parsed here.
  const needles = [userId, ...anonymousIds, ...messageIds].map((v) => Buffer.from(JSON.stringify(v), "utf8"));
  const { rows } = await client.query<{ id: string; by_id: boolean; body: Buffer }>(
    `SELECT r.id::text AS id, (r.headers->>'webhook-id') = ANY($2::text[]) AS by_id, r.body
       FROM captured_requests r JOIN capture_bins b ON b.id = r.bin_id
      WHERE b.workspace_id = $1
        AND ((r.headers->>'webhook-id') = ANY($2::text[])
             OR EXISTS (SELECT 1 FROM unnest($3::bytea[]) AS n(v) WHERE position(n.v IN r.body) > 0))`,
    [workspaceId, webhookIds, needles],
  );
  const user = { userId, anonymousIds: new Set(anonymousIds), messageIds: new Set(messageIds) };
  const ids = rows.filter((r) => r.by_id || carriesUser(r.body.toString("utf8"), user)).map((r) => r.id);
  if (ids.length === 0) return 0;
  const deleted = await client.query("DELETE FROM captured_requests WHERE id = ANY($1::bigint[])", [ids]);
  return deleted.rowCount ?? 0;
}

type User = { userId: string; anonymousIds: Set<string>; messageIds: Set<string> };

/**
 * Whether a body that holds one of the user's values as a JSON string holds an event of theirs: an
 * object anywhere in it (one event, an array, a Tracking API `batch`, a mapping's nesting) with their
 * `userId`, an erased `messageId`, or an `anonymousId` of theirs and no `userId`.
 */
export function carriesUser(body: string, user: User): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return true;
  }
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    const { userId, anonymousId, messageId } = v as Record<string, unknown>;
    if (userId === user.userId) return true;
    if (typeof messageId === "string" && user.messageIds.has(messageId)) return true;
    if ((userId === undefined || userId === null) && typeof anonymousId === "string" && user.anonymousIds.has(anonymousId)) return true;
    for (const x of Object.values(v)) stack.push(x);
  }
  return false;
}
