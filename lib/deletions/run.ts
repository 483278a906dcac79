import "server-only";
import { pool, withTransaction } from "../platform/db";
import { logger } from "../platform/logger";
import { eraseUserData } from "./erase";
import { createDeleteNotifications } from "./notifications";
import type { DeletionResult, UserResult } from "./contract";

type Claimed = { workspaceId: string; userIds: string[]; result: DeletionResult | null; createdAt: Date };

/**
 * The `deletion` job: erases each named user and creates their delete notices, one transaction per
 * user that also records the user's result — so a job that crashes half-way runs again cleanly,
 * skipping the users already done (their data is gone and their notices exist).
 * Throws to let pg-boss retry; on the last attempt the request is marked failed instead.
 */
export async function runDeletionRequest(opts: { deletionRequestId: string; jobId?: string; lastAttempt: boolean }): Promise<void> {
  const { deletionRequestId: id } = opts;
  const claimed = await claim(id);
  if (!claimed) return; // finished already, or its workspace is gone
  // The notice's timestamp is when the deletion was requested, the same on every re-run.
  const timestamp = claimed.createdAt.toISOString();
  const done = new Set(Object.keys(claimed.result?.users ?? {}));
  try {
    for (const userId of claimed.userIds) {
      if (done.has(userId)) continue;
      await withTransaction(async (client) => {
        const { affectedSourceIds, erased } = await eraseUserData(client, { workspaceId: claimed.workspaceId, userId });
        const notifications = await createDeleteNotifications(client, {
          workspaceId: claimed.workspaceId,
          requestId: id,
          userId,
          sourceIds: affectedSourceIds,
          timestamp,
        });
        const entry: UserResult = { userId, affectedSourceIds, erased, notifications, finishedAt: new Date().toISOString() };
        await client.query(
          `UPDATE deletion_requests SET result = jsonb_set(coalesce(result, '{"users":{}}'::jsonb), ARRAY['users', $2], $3::jsonb)
            WHERE id = $1`,
          [id, userId, JSON.stringify(entry)],
        );
      });
    }
    await pool().query("UPDATE deletion_requests SET status = 'completed', error = NULL, finished_at = now() WHERE id = $1", [id]);
  } catch (err) {
    logger().error(
      { deletionRequestId: id, jobId: opts.jobId, err: (err as Error).message, lastAttempt: opts.lastAttempt },
      "deletion request failed",
    );
    if (opts.lastAttempt) {
      // The cause is in the worker log; the request shows a plain message, never database internals.
      await pool().query("UPDATE deletion_requests SET status = 'failed', error = $2, finished_at = now() WHERE id = $1", [
        id,
        `The deletion could not be completed (job ${opts.jobId ?? "unknown"}); users listed as done were erased.`,
      ]);
      return;
    }
    throw err;
  }
}

async function claim(id: string): Promise<Claimed | undefined> {
  const { rows } = await pool().query<Claimed>(
    `UPDATE deletion_requests SET status = 'running', started_at = coalesce(started_at, now())
      WHERE id = $1 AND status <> 'completed'
      RETURNING workspace_id AS "workspaceId", user_ids AS "userIds", result, created_at AS "createdAt"`,
    [id],
  );
  return rows[0];
}
