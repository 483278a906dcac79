// The routing filter's conditions (lib/routing/event-condition.ts) evaluate in memory at intake; the
// audience compiler (lib/audiences/compile.ts comparePredicate) makes the same operators into SQL.
// One language, one meaning: every shared operator is run both ways on the same values, in real
// Postgres, and the answers must agree (docs/routing.md#conditions).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Params, comparePredicate } from "../lib/audiences/compile";
import { OPERATORS, UNARY_OPERATORS, type Operator } from "../lib/audiences/condition";
import { compare, valueAt } from "../lib/routing/event-condition";
import { adminUrl } from "./harness/pg";

let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: adminUrl() });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
});

const call = {
  properties: {
    order: { total: 149.5, count: "12", currency: "EUR", items: ["book", "pen", 3], flags: { gift: true } },
    coupon: "SUMMER-10",
    date: "2026-11-28",
    zero: 0,
    nothing: null,
    yes: true,
  },
};
const fields = [
  "properties.order.total",
  "properties.order.count",
  "properties.order.currency",
  "properties.order.items",
  "properties.order.flags",
  "properties.order.missing",
  "properties.coupon",
  "properties.date",
  "properties.zero",
  "properties.nothing",
  "properties.yes",
];
const values: (string | number | boolean)[] = [
  100,
  149.5,
  "149.5",
  12,
  "12",
  "EUR",
  "eur",
  "pen",
  3,
  "SUMMER",
  "2026-01-01",
  0,
  true,
  "true",
];

async function sqlCompare(field: string, op: Operator, value: string | number | boolean | undefined): Promise<boolean> {
  const names = field.split(".");
  const p = new Params("00000000-0000-4000-8000-000000000000", []);
  const doc = p.add(JSON.stringify(call), "jsonb");
  const parent = p.add(names.slice(0, -1), "text[]");
  const predicate = comparePredicate(p, `(${doc} #> ${parent})`, { key: names.at(-1)!, op, value });
  const { rows } = await db.query<{ holds: boolean }>(`SELECT $1::uuid IS NOT NULL AND ${predicate} AS holds`, p.values);
  return rows[0].holds;
}

describe("conditions at intake and the audience SQL compiler", () => {
  it("agree on every shared operator, for numbers, numeric texts, texts, arrays, objects, null and missing fields", async () => {
    const disagreements: string[] = [];
    let checked = 0;
    for (const field of fields) {
      for (const op of OPERATORS) {
        for (const value of UNARY_OPERATORS.includes(op) ? [undefined] : values) {
          if (["gt", "gte", "lt", "lte"].includes(op) && typeof value === "boolean") continue;
          const inMemory = compare(valueAt(call, field), op, value);
          const inSql = await sqlCompare(field, op, value);
          checked++;
          if (inMemory !== inSql) disagreements.push(`${field} ${op} ${JSON.stringify(value)}: memory ${inMemory}, SQL ${inSql}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(700);
    expect(disagreements).toEqual([]);
  });
});
