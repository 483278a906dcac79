import "server-only";
import { pool } from "../platform/db";
import { AppError } from "../platform/errors";
import { filterVerdict } from "../routing/destination-filter";
import { applyFieldLists } from "../routing/field-lists";
import { integrationsAllow } from "../routing/route-message";
import { buildPayload } from "../webhooks/payload";
import type { FilterPreviewInput, FilterPreviewResult } from "./contract";

type Row = {
  type: string;
  event: string | null;
  message_id: string;
  user_id: string | null;
  anonymous_id: string | null;
  timestamp: Date;
  received_at: Date;
  sent_at: Date | null;
  payload: Record<string, unknown>;
};

/** The preview lists the track events it saw, most frequent first, up to this many. */
const TOP_EVENTS = 20;

/**
 * How a filter would treat the most recent calls of some sources (docs/routing.md#destination-filters):
 * the form's preview, run on the filter as typed, before it is saved. Each call is routed exactly as
 * at ingest (integrations, then the filter: types, event names, conditions, sampling) to an enabled
 * destination with this filter; the newest call that passes is shown as built and as its drop and
 * allow lists would send it.
 */
export async function previewFilter(opts: { workspaceId: string; input: FilterPreviewInput }): Promise<FilterPreviewResult> {
  const { sourceIds, filter, limit } = opts.input;
  const empty: FilterPreviewResult = {
    considered: 0,
    passed: 0,
    byType: [],
    byEvent: [],
    excluded: { integrations: 0, typeOrEvent: 0, conditions: 0, sampling: 0 },
    example: null,
  };
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
    `SELECT m.type, m.event, m.message_id, m.user_id, m.anonymous_id, m.timestamp, m.received_at, m.sent_at, m.payload
       FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT type, event, message_id, user_id, anonymous_id, timestamp, received_at, sent_at, payload FROM messages
          WHERE source_id = s.id AND origin = 'api' AND payload IS NOT NULL
          ORDER BY received_at DESC LIMIT $2) m
      ORDER BY m.received_at DESC LIMIT $2`,
    [[...ours], limit],
  );

  const byType = new Map<string, { considered: number; passed: number }>();
  const byEvent = new Map<string, { considered: number; passed: number }>();
  const count = (map: Map<string, { considered: number; passed: number }>, key: string, passed: boolean) => {
    const c = map.get(key) ?? { considered: 0, passed: 0 };
    c.considered += 1;
    if (passed) c.passed += 1;
    map.set(key, c);
  };
  let passed = 0;
  const excluded = { integrations: 0, typeOrEvent: 0, conditions: 0, sampling: 0 };
  let example: FilterPreviewResult["example"] = null;
  for (const r of rows) {
    const ok = previewOne(r, filter, excluded);
    if (ok) passed += 1;
    if (ok && example === null) {
      const built = buildPayload({
        type: r.type,
        messageId: r.message_id,
        userId: r.user_id,
        anonymousId: r.anonymous_id,
        timestamp: r.timestamp.toISOString(),
        receivedAt: r.received_at.toISOString(),
        sentAt: r.sent_at?.toISOString() ?? null,
        payload: r.payload,
      });
      example = { messageId: r.message_id, built, sent: applyFieldLists(built, filter) };
    }
    count(byType, r.type, ok);
    if (r.type === "track" && r.event !== null) count(byEvent, r.event, ok);
  }
  const list = <K extends string>(map: Map<string, { considered: number; passed: number }>, key: K) =>
    [...map]
      .sort((a, b) => b[1].considered - a[1].considered)
      .map(([k, c]) => ({ [key]: k, ...c }) as { [P in K]: string } & { considered: number; passed: number });
  return {
    considered: rows.length,
    passed,
    byType: list(byType, "type"),
    byEvent: list(byEvent, "event").slice(0, TOP_EVENTS),
    excluded,
    example,
  };
}

/** One call routed as at ingest; a call left out is counted under the first rule that left it out. */
function previewOne(r: Row, filter: FilterPreviewInput["filter"], excluded: FilterPreviewResult["excluded"]): boolean {
  const integrations = r.payload.integrations as Record<string, unknown> | null | undefined;
  if (!integrationsAllow(integrations)) {
    excluded.integrations += 1;
    return false;
  }
  const call = { type: r.type, event: r.event, messageId: r.message_id, payload: r.payload };
  if (filterVerdict({ ...filter, where: null, samplePercent: 100 }, call).passes === false) excluded.typeOrEvent += 1;
  else if (filterVerdict({ ...filter, samplePercent: 100 }, call).passes === false) excluded.conditions += 1;
  else if (filterVerdict(filter, call).passes === false) excluded.sampling += 1;
  else return true;
  return false;
}
