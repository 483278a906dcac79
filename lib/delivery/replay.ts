import { z } from "zod";
import { withTransaction } from "../db";
import { attemptFilterSchema } from "./attempt-schemas";
import { attemptWhere } from "./attempts";
import { enqueueDeliveryJobs } from "./enqueue";

/**
 * POST /api/messages/replay. Either `ids` (message row ids: their failed deliveries, and their
 * delivered ones too when `includeDelivered` is true — a deliberate "send it again"), or `filter`
 * (the /api/attempts filters: failed deliveries that have a matching attempt). Pending deliveries are
 * never touched: they already have a job, and a second one would deliver twice.
 */
export const replaySchema = z
  .object({
    ids: z.array(z.string().uuid("Not a message id")).min(1, "Give at least one id").max(1000, "At most 1000 ids").optional(),
    filter: attemptFilterSchema.optional(),
    includeDelivered: z.boolean().default(false),
    dryRun: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.ids === !v.filter) ctx.addIssue({ code: "custom", path: ["ids"], message: "Give either ids or filter" });
  });
export type ReplayInput = z.infer<typeof replaySchema>;

/** At most this many deliveries per replay call; the caller can repeat. */
export const REPLAY_LIMIT = 10_000;

export async function replayMessages(opts: { workspaceId: string; input: ReplayInput }): Promise<{ count: number } | { replayed: number }> {
  const { input } = opts;
  const select = selectDeliveries(opts.workspaceId, input);
  return withTransaction(async (client) => {
    if (input.dryRun) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${select.sql}) s`, select.values);
      return { count: rows[0].n };
    }
    // FOR UPDATE + state re-check: two concurrent replays cannot both re-queue the same delivery.
    const { rows } = await client.query<{ id: string }>(
      `UPDATE deliveries d SET state = 'pending', pending_urls = NULL, attempt_count = 0, first_attempt_at = NULL,
              next_attempt_at = NULL, last_error = NULL, delivered_at = NULL, updated_at = now()
       WHERE d.id IN (SELECT id FROM deliveries WHERE id IN (${select.sql}) AND state <> 'pending' FOR UPDATE)
       RETURNING d.id`,
      select.values,
    );
    await enqueueDeliveryJobs(client, rows.map((r) => r.id));
    return { replayed: rows.length };
  });
}

function selectDeliveries(workspaceId: string, input: ReplayInput): { sql: string; values: unknown[] } {
  if (input.ids) {
    const states = input.includeDelivered ? ["failed", "delivered"] : ["failed"];
    return {
      sql: `SELECT id FROM deliveries WHERE workspace_id = $1 AND message_row_id = ANY($2::uuid[]) AND state = ANY($3::text[]) LIMIT ${REPLAY_LIMIT}`,
      values: [workspaceId, input.ids, states],
    };
  }
  const where = attemptWhere(workspaceId, input.filter ?? {});
  return {
    sql: `SELECT DISTINCT a.delivery_id FROM attempts a JOIN deliveries dd ON dd.id = a.delivery_id AND dd.state = 'failed'
          WHERE ${where.sql} LIMIT ${REPLAY_LIMIT}`,
    values: where.values,
  };
}
