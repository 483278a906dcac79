/**
 * What the delivery statements' plan tests share (test/delivery-record, test/delivery-load,
 * test/batch-statements): the rows a plan read from a table, and an attempt answered 200 "ok".
 */
import type { AttemptRow, DeliveryUpdate } from "../../../lib/delivery/record";

type PlanNode = {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Node Type": string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
};

type Explained = { rows: { "QUERY PLAN": { Plan: PlanNode }[] }[] };

/** Every node of an `EXPLAIN (FORMAT JSON)` plan. */
export function planNodes(explained: Explained): PlanNode[] {
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(explained.rows[0]["QUERY PLAN"][0].Plan);
  return nodes;
}

/**
 * Rows of `table` an `EXPLAIN (ANALYZE, FORMAT JSON)` plan read, its writes aside, counting those a
 * filter dropped: a sequential scan returns only the batch's rows, having read every other one.
 */
export function rowsRead(explained: Explained, table: string): number {
  return planNodes(explained)
    .filter((n) => n["Relation Name"] === table && n["Node Type"] !== "ModifyTable")
    .reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"], 0);
}

/** An attempt of one delivery answered 200 "ok" in 2 ms; the rest as given. */
export function answeredOk(
  row: Pick<AttemptRow, "workspace_id" | "delivery_id" | "destination_id" | "message_row_id"> & Partial<AttemptRow>,
): AttemptRow {
  return {
    message_id: "m",
    type: "track",
    user_id: "u1",
    url: "http://127.0.0.1:9/x",
    attempt_number: 1,
    started_at: new Date().toISOString(),
    duration_ms: 2,
    request_headers: { "content-type": "application/json" },
    request_body: "{}",
    response_status: 200,
    response_headers: {},
    response_body: "ok",
    error_kind: null,
    error_text: null,
    outcome: "success",
    next_retry_at: null,
    ...row,
  };
}

/** A delivery's update after a round that delivered it now; the rest as given. */
export function roundUpdate(id: string, over: Partial<DeliveryUpdate> = {}): DeliveryUpdate {
  const now = new Date().toISOString();
  return {
    id,
    state: "delivered",
    pending_urls: [],
    attempt_count: 1,
    first_attempt_at: now,
    last_attempt_at: now,
    next_attempt_at: null,
    last_error: null,
    last_status: 200,
    delivered_at: now,
    ...over,
  };
}
