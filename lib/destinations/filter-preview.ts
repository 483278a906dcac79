import "server-only";
import { filterVerdict } from "../routing/destination-filter";
import { applyFieldLists } from "../routing/field-lists";
import { integrationsAllow } from "../routing/route-message";
import { buildPayload } from "../webhooks/payload";
import type { FilterPreviewInput, FilterPreviewResult } from "./contract";
import { recentCalls, type RecentCall } from "./recent-calls";

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
  const rows = await recentCalls({ workspaceId: opts.workspaceId, sourceIds, limit });

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
      const built = buildPayload(r);
      example = { messageId: r.messageId, built, sent: applyFieldLists(built, filter) };
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
function previewOne(r: RecentCall, filter: FilterPreviewInput["filter"], excluded: FilterPreviewResult["excluded"]): boolean {
  const integrations = r.payload.integrations as Record<string, unknown> | null | undefined;
  if (!integrationsAllow(integrations)) {
    excluded.integrations += 1;
    return false;
  }
  const call = { type: r.type, event: r.event, messageId: r.messageId, payload: r.payload };
  if (filterVerdict({ ...filter, where: null, samplePercent: 100 }, call).passes === false) excluded.typeOrEvent += 1;
  else if (filterVerdict({ ...filter, samplePercent: 100 }, call).passes === false) excluded.conditions += 1;
  else if (filterVerdict(filter, call).passes === false) excluded.sampling += 1;
  else return true;
  return false;
}
