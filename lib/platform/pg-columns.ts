import "server-only";
import { column, hiddenIds, hiddenText } from "./pg-arrays";

/**
 * Multi-row statements from typed column lists (docs/architecture.md#one-plan): a
 * statement declares its inputs, each a list of columns (name, Postgres type, how a row gives its
 * value), and its text asks each input for its `unnest(…) AS alias(…)` list or for one column's
 * parameter by name. The builder numbers the parameters once, when the statement is made, and writes
 * the parameters of a call from the same lists in the same order: nothing is matched by position by
 * hand, and a variant is another statement made by the same builder, not text edited by replacement.
 * Each column travels as one array literal (pg-arrays.ts), so a statement's text and size do not
 * depend on its rows, and a prepared statement stays one. Pure: no I/O. (slonik's `sql.unnest` is the
 * same idea over its own client.)
 */

/** A column's Postgres type, which says how its array parameter is written (pg-arrays.ts ColumnKind) and read. */
export type PgType = "uuid" | "int" | "boolean" | "timestamptz" | "text" | "json";
type ValueOf<T extends PgType> = T extends "int" ? number | null : T extends "boolean" ? boolean | null : string | null;

/** One column: its type and its value for a row (`i`, the row's index, for values shared with the previous row). */
export type Column<R, T extends PgType = PgType> = readonly [type: T, value: (row: R, i: number) => ValueOf<T>];
/** A column list, by name, in the order the statement reads them. */
export type Columns<R> = { readonly [name: string]: { [T in PgType]: Column<R, T> }[PgType] };

/** A column list for rows of type R, checked by type: an `int` column's value is a number, a `boolean`'s a boolean, the others' strings. */
export const columns =
  <R>() =>
  <C extends Columns<R>>(list: C): C =>
    list;

type RowOf<C> = C extends Columns<infer R> ? R : never;

const SCALAR: unique symbol = Symbol("one value per call");
/** A column list whose columns are one value per call (`$n::type`), not one per row: a statement's own facts. */
export type Scalars<C> = C & { readonly [SCALAR]: true };

/**
 * A column list of one value each per call, from one object R (a request's workspace, its source):
 * each column's parameter is `$n::type`, written from the same list as the rows' columns.
 */
export const scalars =
  <R>() =>
  <C extends Columns<R>>(list: C): Scalars<C> =>
    Object.defineProperty({ ...list }, SCALAR, { value: true, enumerable: false }) as Scalars<C>;

const isScalars = (list: Columns<never>): boolean => (list as { [SCALAR]?: true })[SCALAR] === true;

/** What a statement's text asks of one input. */
export type InputRef<C extends Columns<never>> = {
  /** `unnest($a::uuid[], …) [WITH ORDINALITY] AS alias(name, …[, n])`: every column of the input, by name. */
  unnest(alias: string, opts?: { ordinality?: string }): string;
  /** One column's array parameter: `$n::type[]`, or for a `json` column the text that joins its values; of scalars, its value `$n::type`. */
  param(name: keyof C & string): string;
  /** One `uuid` column's array, hidden from the planner (pg-arrays.ts hiddenIds), for `id = ANY(…)`. */
  hiddenIds(name: keyof C & string): string;
};

/** A statement's parameters: array literals (strings), and a scalars input's values as they are. */
type ValuesOf<I> = true extends { [K in keyof I]: I[K] extends { readonly [SCALAR]: true } ? true : false }[keyof I]
  ? (string | number | boolean | null)[]
  : string[];

export type Statement<I extends Record<string, Columns<never>>> = {
  text: string;
  /** The parameters of one call: each input's rows (a scalars input's one object), column by column, in the numbering of the text. */
  values(rows: { [K in keyof I]: I[K] extends Scalars<infer C> ? RowOf<C> : readonly RowOf<I[K]>[] }): ValuesOf<I>;
};

const CAST: Record<PgType, string> = {
  uuid: "uuid[]",
  int: "int[]",
  boolean: "boolean[]",
  timestamptz: "timestamptz[]",
  text: "text[]",
  json: "",
};
const KIND = { uuid: "bare", int: "bare", boolean: "bare", timestamptz: "bare", text: "text", json: "json" } as const;
/** A boolean column's element as Postgres reads it in an array literal. */
const pgBoolean = (get: (row: unknown, i: number) => unknown) => (row: unknown, i: number) => {
  const v = get(row, i);
  return v === null || v === undefined ? null : v ? "t" : "f";
};

/**
 * Makes a statement over `inputs` (each a column list): `write` gets one InputRef per input and
 * returns the text. Every column of every input is a parameter, numbered from 1 in the inputs'
 * order, then the columns' order, so `write` must use each input (its unnest, or its params).
 */
export function statement<I extends Record<string, Columns<never>>>(
  inputs: I,
  write: (refs: { [K in keyof I]: InputRef<I[K]> }) => string,
): Statement<I> {
  const numbers = new Map<string, Map<string, number>>();
  let n = 0;
  for (const [input, list] of Object.entries(inputs)) {
    const m = new Map<string, number>();
    for (const name of Object.keys(list)) m.set(name, ++n);
    numbers.set(input, m);
  }
  const refs = {} as { [K in keyof I]: InputRef<I[K]> };
  for (const [input, list] of Object.entries(inputs)) {
    const m = numbers.get(input)!;
    const scalar = isScalars(list);
    const param = (name: string) => {
      const k = m.get(name);
      if (k === undefined) throw new Error(`statement: ${input} has no column ${name}`);
      const [type] = list[name];
      if (scalar) return `$${k}::${type === "json" ? "text" : type}`;
      return type === "json" ? `string_to_array(${hiddenText(k)}, E'\\x1e', '')` : `$${k}::${CAST[type]}`;
    };
    refs[input as keyof I] = {
      unnest(alias, opts) {
        if (scalar) throw new Error(`statement: ${input} is one value per column, not rows`);
        const names = Object.keys(list);
        const ord = opts?.ordinality ? ` WITH ORDINALITY` : "";
        const cols = opts?.ordinality ? [...names, opts.ordinality] : names;
        return `unnest(${names.map(param).join(", ")})${ord} AS ${alias}(${cols.join(", ")})`;
      },
      param,
      hiddenIds(name) {
        const k = m.get(name);
        if (k === undefined || scalar || list[name][0] !== "uuid") throw new Error(`statement: ${input}.${name} is not a uuid column`);
        return hiddenIds(k);
      },
    } as InputRef<I[keyof I]>;
  }
  const text = write(refs);
  for (let k = 1; k <= n; k++)
    if (!new RegExp(`\\$${k}(?![0-9])`).test(text)) throw new Error(`statement: parameter $${k} is not used in its text`);
  const lists = Object.entries(inputs);
  return {
    text,
    values(rows) {
      const out: (string | number | boolean | null)[] = [];
      for (const [input, list] of lists) {
        if (isScalars(list)) {
          const one = (rows as Record<string, unknown>)[input];
          for (const [, value] of Object.values(list))
            out.push((value as (row: unknown, i: number) => string | number | boolean | null)(one, 0));
          continue;
        }
        out.push(...Object.values(columnValues(list, (rows as unknown as Record<string, readonly never[]>)[input])));
      }
      return out as ValuesOf<I>;
    },
  };
}

/** Rows as a column list's parameters, by column name: what a statement's `values` writes for one input of rows. */
export function columnValues<C extends Columns<never>>(list: C, rows: readonly RowOf<C>[]): { [K in keyof C]: string } {
  const out = {} as Record<string, string>;
  for (const [name, [type, value]] of Object.entries(list)) {
    const get = value as (row: unknown, i: number) => string | number | null;
    out[name] = column(rows, type === "boolean" ? pgBoolean(get) : get, KIND[type]);
  }
  return out as { [K in keyof C]: string };
}
