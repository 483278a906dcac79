import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { withTransaction } from "../platform/db";
import type { ReplayInput, ReplayResult } from "./contract";
import { attemptWhere } from "./attempts";
import { requestDeliveries } from "../delivery/enqueue";

/** At most this many deliveries per replay call; the caller can repeat. */
export const REPLAY_LIMIT = 10_000;

/**
 * Replays messages (docs/webhooks.md#replay). A (message, destination) pair has a chain of
 * deliveries: the one ingest made, then one per replay (`replay_of` the one before, `replay_number`
 * counting up). A replay looks at the latest delivery of each selected pair and, when it did not
 * succeed (or `includeDelivered` asks for delivered ones too), creates a NEW delivery linked to it,
 * so the original keeps its own record. Nothing is re-sent where it already succeeded unless asked:
 * - a delivered chain is skipped unless `includeDelivered`;
 * - in `every` mode the new delivery goes only to the URLs that never answered 2xx in the chain
 *   (all of them with `includeDelivered`);
 * - a chain whose latest delivery is still pending is skipped: it is still being delivered.
 * - a test-send's chain keeps its URLs (target_urls): its replay goes only where the test went.
 * Two concurrent replays of one chain cannot both create its next delivery: the unique
 * (message, destination, replay_number) lets one insert and the other skip.
 */
export async function replayMessages(opts: {
  workspaceId: string;
  actor: Actor;
  input: Omit<ReplayInput, "ordered"> & { ordered?: boolean };
}): Promise<ReplayResult> {
  const input: ReplayInput = { ...opts.input, ordered: opts.input.ordered ?? false };
  const chosen = chosenDeliveries(opts.workspaceId, input);
  return withTransaction(async (client) => {
    if (input.dryRun) {
      // What it sends, and what it leaves alone: still retrying (replayed once they end), already delivered.
      const { rows } = await client.query<{ n: number; retrying: number; delivered: number }>(
        `${chosen.sql} SELECT (SELECT count(*) FROM chosen)::int AS n,
           (SELECT count(*) FROM latest WHERE state = 'pending')::int AS retrying,
           (SELECT count(*) FROM latest WHERE state = 'delivered')::int AS delivered`,
        chosen.values,
      );
      return { count: rows[0].n, stillRetrying: rows[0].retrying, delivered: rows[0].delivered };
    }
    const { rows: picked } = await client.query<{
      id: string;
      workspace_id: string;
      message_row_id: string;
      destination_id: string;
      pending_urls: string[] | null;
      target_urls: string[] | null;
      replay_number: number;
    }>(
      `${chosen.sql}
       SELECT c.id, c.workspace_id, c.message_row_id, c.destination_id, c.pending_urls, c.target_urls, c.replay_number FROM chosen c`,
      chosen.values,
    );
    const rows = await requestDeliveries(
      client,
      picked.map((c) => ({
        workspaceId: c.workspace_id,
        messageRowId: c.message_row_id,
        destinationId: c.destination_id,
        pendingUrls: c.pending_urls,
        targetUrls: c.target_urls,
        replayOf: c.id,
        replayNumber: c.replay_number + 1,
        ordered: input.ordered,
      })),
      { conflict: "pair" },
    );
    if (rows.length > 0) {
      await recordAudit(client, {
        workspaceId: opts.workspaceId,
        actor: opts.actor,
        action: "replay.create",
        resourceType: "replay",
        changes: {
          replayed: { before: null, after: rows.length },
          selection: { before: null, after: input.ids ? { ids: input.ids.slice(0, 50) } : { filter: input.filter ?? null } },
        },
      });
    }
    return { replayed: rows.length };
  });
}

/**
 * `WITH … chosen AS (…)`: the latest delivery of each selected (message, destination) that is to
 * be replayed, with the URLs its replay goes to (NULL: all of the destination's URLs).
 */
function chosenDeliveries(workspaceId: string, input: ReplayInput): { sql: string; values: unknown[] } {
  const { pairs, values } = selectedPairs(workspaceId, input);
  // By ids, delivered chains are replayed when asked for; by filter, only failed ones (replaySchema).
  const states = input.ids && input.includeDelivered ? ["failed", "delivered"] : ["failed"];
  values.push(states);
  const statesParam = `$${values.length}`;
  values.push(Boolean(input.ids && input.includeDelivered));
  const everywhere = `$${values.length}`;
  const sql = `
    WITH pairs AS (${pairs}),
    latest AS (
      -- unique (message_row_id, destination_id, replay_number): one index probe per pair
      SELECT DISTINCT ON (d.message_row_id, d.destination_id)
             d.id, d.workspace_id, d.message_row_id, d.destination_id, d.state, d.replay_number, d.target_urls
      FROM pairs p JOIN deliveries d ON d.message_row_id = p.message_row_id AND d.destination_id = p.destination_id
      WHERE d.workspace_id = $1
      ORDER BY d.message_row_id, d.destination_id, d.replay_number DESC
    ),
    targets AS (
      SELECT l.*,
             CASE WHEN t.mode = 'every' AND NOT ${everywhere}::boolean THEN
               -- every mode: only the URLs that never answered 2xx for this message (index attempts(message_row_id))
               ARRAY(SELECT u FROM unnest(t.urls) AS u
                     WHERE NOT EXISTS (SELECT 1 FROM attempts a
                                       WHERE a.message_row_id = l.message_row_id AND a.destination_id = l.destination_id
                                         AND a.url = u AND a.outcome = 'success'))
             END AS pending_urls
      FROM latest l JOIN destinations t ON t.id = l.destination_id
      WHERE l.state = ANY(${statesParam}::text[])
    ),
    chosen AS (
      -- an every-mode chain whose URLs all succeeded has nothing left to send
      SELECT * FROM targets WHERE pending_urls IS NULL OR cardinality(pending_urls) > 0 LIMIT ${REPLAY_LIMIT}
    )`;
  return { sql, values };
}

/** The (message, destination) pairs the input names: by message ids, or by a matching attempt. */
function selectedPairs(workspaceId: string, input: ReplayInput): { pairs: string; values: unknown[] } {
  if (input.ids) {
    return {
      pairs: `SELECT DISTINCT message_row_id, destination_id FROM deliveries WHERE workspace_id = $1 AND message_row_id = ANY($2::uuid[])`,
      values: [workspaceId, input.ids],
    };
  }
  const where = attemptWhere(workspaceId, input.filter ?? {});
  return {
    pairs: `SELECT DISTINCT a.message_row_id, a.destination_id FROM attempts a WHERE ${where.sql}`,
    values: where.values,
  };
}
