import "server-only";
/**
 * Array parameters written as Postgres array literals, one per column of a multi-row statement
 * (`unnest($1::uuid[], $2::text[], …)`: the ingest statement's messages, lib/tracking/persist.ts, and
 * the delivery recording's attempts and deliveries, lib/delivery/record.ts): node-pg would serialize a JS array element by element with
 * two regex replacements each, and a JSON recordset makes the worker build, and Postgres parse, one
 * big JSON document (docs/webhooks.md#delivery-cost). Pure, unit-tested beside.
 *
 * Each literal is made by one `join` of one reused array, which writes its flat result in one
 * allocation rather than tens of thousands of pieces of garbage per batch
 * (docs/decisions/0011-delivery-batch-statements.md).
 */

/** What a quoted element must escape: quote and backslash. */
const NEEDS_QUOTE_ESCAPE = /["\\]/;
const QUOTE_ESCAPES = /["\\]/g;

/**
 * Separates JSON texts in one text parameter, which the statement splits with
 * `string_to_array($n, E'\x1e', '')`. JSON.stringify never writes a raw control character (it
 * escapes them as \u00XX), so the separator cannot occur inside one; and a JSON text is never empty,
 * so the empty element stands for NULL. Cheaper than a text[] literal for JSON, whose every key is
 * quoted and would have to be escaped, and unescaped again by Postgres.
 */
export const JSON_SEPARATOR = "\x1e";

/**
 * How a column is written: `bare` for uuids, ISO 8601 timestamps and integers (no quoting); `text`
 * for a text[] literal, every element quoted (so that `NULL`, braces, commas, spaces and empty
 * strings stay text; quotes and backslashes escaped), NULL unquoted; `json` for JSON texts joined by
 * JSON_SEPARATOR, NULL as the empty element (`join` writes null as nothing). `json` throws on a value
 * that is not such a text (empty, or holding the separator) rather than store it split.
 */
export type ColumnKind = "bare" | "text" | "json";

/** Reused by every column: filled, joined and left for the next (encoding is synchronous). */
const reused: (string | number | null)[] = [];
let inUse = false;

export function column<R>(rows: readonly R[], get: (row: R, i: number) => string | number | null, kind: ColumnKind): string {
  // A getter may encode a literal of its own (a delivery's pending URLs): that one gets a fresh array.
  if (inUse) return encode(rows, get, kind, []);
  inUse = true;
  try {
    return encode(rows, get, kind, reused);
  } finally {
    inUse = false;
  }
}

function encode<R>(
  rows: readonly R[],
  get: (row: R, i: number) => string | number | null,
  kind: ColumnKind,
  scratch: (string | number | null)[],
) {
  const n = rows.length;
  scratch.length = n;
  if (kind === "bare") {
    for (let i = 0; i < n; i++) scratch[i] = get(rows[i], i) ?? "NULL";
    return `{${scratch.join(",")}}`;
  }
  if (kind === "json") {
    for (let i = 0; i < n; i++) {
      const v = get(rows[i], i) as string | null;
      if (v !== null && (v.length === 0 || v.includes(JSON_SEPARATOR))) throw new Error("column: not a JSON text");
      scratch[i] = v;
    }
    return scratch.join(JSON_SEPARATOR);
  }
  let plain = true;
  for (let i = 0; i < n; i++) {
    const v = get(rows[i], i) as string | null;
    if (v === null || NEEDS_QUOTE_ESCAPE.test(v)) plain = false;
    scratch[i] = v;
  }
  if (n === 0) return "{}";
  if (plain) return `{"${scratch.join('","')}"}`;
  for (let i = 0; i < n; i++) {
    const v = scratch[i] as string | null;
    scratch[i] = v === null ? "NULL" : `"${NEEDS_QUOTE_ESCAPE.test(v) ? v.replace(QUOTE_ESCAPES, "\\$&") : v}"`;
  }
  return `{${scratch.join(",")}}`;
}

const same = <T>(v: T) => v;
export const bareArray = (values: readonly (string | number | null)[]): string => column(values, same, "bare");
export const textArray = (values: readonly (string | null)[]): string => column(values, same, "text");
export const jsonTexts = (values: readonly (string | null)[]): string => column(values, same, "json");

/**
 * `$n::uuid[]` for `id = ANY(…)` in a statement planned per execution (unnamed), as a value the
 * planner does not see: with a constant array of hundreds of ids, it costs an index probe per id
 * above a sequential scan of a table of up to ~100,000 rows (random_page_cost 4 on a cached table)
 * and scans the whole table for each batch, where the same ids through the primary key read only
 * their rows (docs/decisions/0102-batch-membership.md). Unknown, the array counts as a few ids.
 */
export const hiddenIds = (n: number): string => `CAST((SELECT $${n}::uuid[]) AS uuid[])`;

/**
 * `$n`, a separator-joined text of JSON texts (`column(…, "json")`), as a value the planner does not
 * see either: planned per execution, `string_to_array($n, …)` of a constant is split at planning
 * time and the resulting array of hundreds of kilobytes copied through the plan — about a
 * millisecond of planning per batch of 500 (docs/decisions/0102-batch-membership.md).
 */
export const hiddenText = (n: number): string => `(SELECT $${n}::text)`;
