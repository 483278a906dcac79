// The ingest statement's columns and values agree (docs/architecture.md#ingest-statement): for
// generated requests, every column each INSERT of the statement writes is read back — from the
// statement's own text (its INSERT column list, SELECT list and unnest aliases) and its parameters,
// decoded as Postgres reads array literals — and compared with what the request says that column
// holds, from a ledger written here by hand. A column moved, renamed or fed from the wrong field
// fails; no database (test/ingest-statement.int.test.ts stores tricky values for real).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JSON_SEPARATOR } from "../platform/pg-arrays";
import type { IngestDelivery } from "../delivery/enqueue";
import type { NormalisedMessage } from "./normalise";
import { storeStatement } from "./persist";
import type { IngestRow } from "./produce";
import type { TrackingSource } from "./write-key";

type Call = { source: TrackingSource; receivedAt: string; count: number };

/** What each table column of the statement holds, by the request's own fields: the ledger. */
const LEDGER: Record<string, Record<string, (x: { call: Call; row: unknown }) => unknown>> = {
  messages: {
    id: ({ row }) => (row as IngestRow).rowId,
    workspace_id: ({ call }) => call.source.workspaceId,
    source_id: ({ call }) => call.source.id,
    origin: () => "api",
    message_id: ({ row }) => (row as IngestRow).message.messageId,
    type: ({ row }) => (row as IngestRow).message.type,
    user_id: ({ row }) => (row as IngestRow).message.userId,
    anonymous_id: ({ row }) => (row as IngestRow).message.anonymousId,
    event: ({ row }) => (row as IngestRow).message.event,
    timestamp: ({ row }) => (row as IngestRow).message.timestamp,
    original_timestamp: ({ row }) => (row as IngestRow).message.originalTimestamp,
    sent_at: ({ row }) => (row as IngestRow).message.sentAt,
    received_at: ({ call }) => call.receivedAt,
    payload: ({ row }) => (row as IngestRow).message.payloadJson,
    violations: ({ row }) => {
      const v = (row as IngestRow).verdict;
      return v ? JSON.stringify(v.violations) : null;
    },
    // the SQL stores null (not judged) as false: coalesce(…, false)
    blocked: ({ row }) => (row as IngestRow).verdict?.blocked ?? null,
  },
  deliveries: {
    id: ({ row }) => (row as IngestDelivery).id,
    workspace_id: ({ call }) => call.source.workspaceId,
    message_row_id: ({ row }) => (row as IngestDelivery).messageRowId,
    destination_id: ({ row }) => (row as IngestDelivery).destinationId,
    order_key: ({ row }) => (row as IngestDelivery).orderKey,
  },
};

/** Splits `a, f(b, c), d` at its top-level commas. */
function topLevel(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = "";
  for (const ch of list) {
    if (ch === "'") quoted = !quoted;
    if (!quoted && ch === "(") depth++;
    if (!quoted && ch === ")") depth--;
    if (!quoted && depth === 0 && ch === ",") {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** The text from `open` (an opening parenthesis) to its closing one, exclusive. */
function parenthesised(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    if (text[i] === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error("unbalanced");
}

/** Postgres' reading of a one-dimensional array literal (array_in): quoted or bare elements, NULL. */
function readArray(literal: string): (string | null)[] {
  expect(literal.startsWith("{") && literal.endsWith("}")).toBe(true);
  const out: (string | null)[] = [];
  let i = 1;
  while (i < literal.length - 1) {
    if (literal[i] === '"') {
      let v = "";
      i++;
      while (i < literal.length && literal[i] !== '"') {
        if (literal[i] === "\\") i++;
        v += literal[i++];
      }
      i++;
      out.push(v);
    } else {
      let v = "";
      while (i < literal.length - 1 && literal[i] !== ",") v += literal[i++];
      out.push(v === "NULL" ? null : v);
    }
    if (literal[i] === ",") i++;
  }
  return out;
}

/** One INSERT of the statement: its table, and for each column it writes, the SELECT expression. */
function inserts(text: string) {
  const found: { table: string; columns: Map<string, string>; unnest: Map<string, string> }[] = [];
  const re = /INSERT INTO (\w+) \(/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const table = m[1];
    if (!(table in LEDGER)) continue;
    const cols = topLevel(parenthesised(text, m.index + m[0].length - 1)).map((c) => c.replace(/"/g, ""));
    const afterCols = text.indexOf("SELECT ", m.index) + "SELECT ".length;
    const fromAt = text.indexOf(" FROM ", afterCols);
    const exprs = topLevel(text.slice(afterCols, fromAt).replace(/\s+/g, " "));
    expect(exprs).toHaveLength(cols.length);
    // FROM unnest(<params>) AS alias(<names>)
    const unnestAt = text.indexOf("unnest(", fromAt);
    const inner = parenthesised(text, unnestAt + "unnest".length);
    const params = topLevel(inner);
    const aliasMatch = /^\) AS (\w+)\(([^)]*)\)/.exec(text.slice(unnestAt + "unnest(".length + inner.length));
    expect(aliasMatch).not.toBeNull();
    const alias = aliasMatch![1];
    const names = aliasMatch![2].split(",").map((s) => s.trim());
    expect(names).toHaveLength(params.length);
    const unnest = new Map(names.map((n, i) => [`${alias}.${n}`, params[i]]));
    found.push({ table, columns: new Map(cols.map((c, i) => [c, exprs[i]])), unnest });
  }
  return found;
}

const paramOf = (sql: string): number => Number(/\$(\d+)/.exec(sql)![1]);

/**
 * A column's parameter, decoded by its form: one value `$n::type`, an array `$n::type[]`, or separated
 * JSON texts (string_to_array: '' is no element, an empty element NULL); `rows` long, as unnest pads a
 * shorter array with NULL.
 */
function decode(sql: string, values: unknown[], rows = 0): unknown {
  const v = values[paramOf(sql) - 1];
  const padded = (a: (string | null)[]) => [...a, ...Array<null>(Math.max(0, rows - a.length)).fill(null)];
  if (sql.startsWith("string_to_array("))
    return padded(v === "" ? [] : (v as string).split(JSON_SEPARATOR).map((s) => (s === "" ? null : s)));
  if (/\$\d+::\w+\[\]/.test(sql)) return padded(readArray(v as string));
  return v;
}

/** The value as the ledger writes it, in the form a decoded parameter has. */
const asParam = (v: unknown, array: boolean): unknown => (!array || v === null ? v : typeof v === "boolean" ? (v ? "t" : "f") : String(v));

const text = fc.string({ unit: "binary", maxLength: 12 });
const iso = fc.date({ min: new Date("1990-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
const uuid = fc.uuid();
const messageArb: fc.Arbitrary<IngestRow> = fc.record({
  rowId: uuid,
  message: fc.record({
    type: fc.constantFrom("track", "identify", "page", "screen", "group", "alias"),
    messageId: text,
    userId: fc.option(text, { nil: null }),
    anonymousId: fc.option(text, { nil: null }),
    event: fc.option(text, { nil: null }),
    timestamp: iso,
    originalTimestamp: fc.option(iso, { nil: null }),
    sentAt: fc.option(iso, { nil: null }),
    payloadJson: fc.jsonValue().map((v) => JSON.stringify({ v })),
  }) as unknown as fc.Arbitrary<NormalisedMessage>,
  verdict: fc.option(
    fc.record({
      blocked: fc.boolean(),
      violations: fc.array(fc.record({ rule: fc.constantFrom("unplanned", "type"), path: text }), { maxLength: 2 }),
    }),
    { nil: null },
  ) as unknown as fc.Arbitrary<IngestRow["verdict"]>,
});
const deliveryArb: fc.Arbitrary<IngestDelivery> = fc.record({
  id: uuid,
  messageRowId: uuid,
  destinationId: uuid,
  orderKey: fc.option(text, { nil: null }),
});
const callArb: fc.Arbitrary<Call> = fc.record({
  source: fc.record({ workspaceId: uuid, id: uuid, routingVersion: fc.nat(), writeKey: text }) as unknown as fc.Arbitrary<TrackingSource>,
  receivedAt: iso,
  count: fc.nat({ max: 500 }),
});

describe("the ingest statement's columns and values (docs/architecture.md#ingest-statement)", () => {
  const sql = storeStatement("deliver_jobs AS (SELECT 1)");
  const found = inserts(sql.text);

  it("writes every column of its two INSERTs from a column the ledger knows", () => {
    expect(found.map((f) => f.table)).toEqual(["messages", "deliveries"]);
    for (const f of found) expect([...f.columns.keys()].sort()).toEqual(Object.keys(LEDGER[f.table]).sort());
  });

  it("gives each column, for generated requests, the value its row (or the request) holds", () => {
    fc.assert(
      fc.property(
        callArb,
        fc.array(messageArb, { maxLength: 6 }),
        fc.array(deliveryArb, { maxLength: 6 }),
        (call, messages, deliveries) => {
          const values = sql.values({ call, messages, deliveries });
          // every parameter the text names is written, and no more
          const numbers = [...sql.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
          expect(values).toHaveLength(Math.max(...numbers));
          for (const f of found) {
            const rows: unknown[] = f.table === "messages" ? messages : deliveries;
            for (const [column, expr] of f.columns) {
              const expected = LEDGER[f.table][column];
              const ref = [...f.unnest.keys()].find((r) => new RegExp(`(^|[^\\w.])${r.replace(".", "\\.")}([^\\w]|$)`).test(expr));
              if (ref) {
                const got = decode(f.unnest.get(ref)!, values, rows.length) as unknown[];
                expect(got).toEqual(rows.map((row) => asParam(expected({ call, row }), true)));
              } else if (/\$\d+/.test(expr)) {
                expect(decode(expr, values)).toEqual(expected({ call, row: null }));
              } else {
                expect(expr).toBe(`'${expected({ call, row: null })}'`);
              }
            }
          }
        },
      ),
      { numRuns: 200, seed: 47 },
    );
  });
});
