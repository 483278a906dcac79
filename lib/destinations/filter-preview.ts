import "server-only";
import { pool } from "../platform/db";
import { AppError } from "../platform/errors";
import { routeMessage } from "../routing/route-message";
import type { FilterPreviewInput, FilterPreviewResult } from "./contract";

type Row = { type: string; event: string | null; integrations: Record<string, unknown> | null };

/** The preview lists the track events it saw, most frequent first, up to this many. */
const TOP_EVENTS = 20;

/**
 * How a filter would treat the most recent calls of some sources (docs/routing.md#destination-filters):
 * the form's preview, run on the filter as typed, before it is saved. Each call is routed exactly as
 * at ingest (integrations, then the filter) to an enabled destination with this filter.
 */
export async function previewFilter(opts: { workspaceId: string; input: FilterPreviewInput }): Promise<FilterPreviewResult> {
  const { sourceIds, filter, limit } = opts.input;
  const empty: FilterPreviewResult = { considered: 0, passed: 0, byType: [], byEvent: [] };
  if (sourceIds.length === 0) return empty;
  const { rows: owned } = await pool().query<{ id: string }>("SELECT id FROM sources WHERE workspace_id = $1 AND id = ANY($2::uuid[])", [
    opts.workspaceId,
    sourceIds,
  ]);
  const ours = new Set(owned.map((r) => r.id));
  const fields: Record<string, string[]> = {};
  sourceIds.forEach((id, i) => {
    if (!ours.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);

  // Per source, its newest calls through messages(source_id, received_at); then the newest of those.
  const { rows } = await pool().query<Row>(
    `SELECT m.type, m.event, m.payload -> 'integrations' AS integrations
       FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT type, event, payload, received_at FROM messages
          WHERE source_id = s.id AND origin = 'api' AND payload IS NOT NULL
          ORDER BY received_at DESC LIMIT $2) m
      ORDER BY m.received_at DESC LIMIT $2`,
    [[...ours], limit],
  );

  const destination = [{ id: "preview", enabled: true, filter }];
  const byType = new Map<string, { considered: number; passed: number }>();
  const byEvent = new Map<string, { considered: number; passed: number }>();
  const count = (map: Map<string, { considered: number; passed: number }>, key: string, passed: boolean) => {
    const c = map.get(key) ?? { considered: 0, passed: 0 };
    c.considered += 1;
    if (passed) c.passed += 1;
    map.set(key, c);
  };
  let passed = 0;
  for (const r of rows) {
    const ok = routeMessage({ type: r.type, event: r.event, integrations: r.integrations }, destination).length > 0;
    if (ok) passed += 1;
    count(byType, r.type, ok);
    if (r.type === "track" && r.event !== null) count(byEvent, r.event, ok);
  }
  const list = <K extends string>(map: Map<string, { considered: number; passed: number }>, key: K) =>
    [...map]
      .sort((a, b) => b[1].considered - a[1].considered)
      .map(([k, c]) => ({ [key]: k, ...c }) as { [P in K]: string } & { considered: number; passed: number });
  return { considered: rows.length, passed, byType: list(byType, "type"), byEvent: list(byEvent, "event").slice(0, TOP_EVENTS) };
}
