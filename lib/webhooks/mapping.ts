/**
 * Body mappings in Segment's Actions mapping language (docs/request-shape.md#mapping): the subset a
 * Segment Webhooks (Actions) mapping uses — `@path`, `@template`, `@if` (exists / blank, then /
 * else), `@arrayPath`, `@literal`, literals and nesting — with Segment's own semantics, quirks
 * included, so a mapping copied from Segment gives the same body here. Written here rather than
 * taken from @segment/actions-core: docs/decisions/0070-body-mapping.md. Pure, and safe in the
 * browser (the destination form validates with it).
 */

import { NumberLiteral } from "../platform/exact-json";

type Json = unknown;
type Obj = Record<string, unknown>;

export const SUPPORTED_DIRECTIVES = ["@path", "@template", "@if", "@arrayPath", "@literal"] as const;
/** Segment directives this subset refuses at save, by name, rather than sending something else. */
const KNOWN_UNSUPPORTED = ["@case", "@replace", "@json", "@flatten", "@merge", "@transform", "@excludeWhenNull", "@liquid"];
/**
 * `bytes` and `depth`: the mapping itself. `bodyBytes`: what one event's mapped body (and one rendered
 * template) may grow to: a 16 KB mapping can copy a 32 KB event a thousand times over, and the send
 * path and the preview refuse such a body with a reason instead of building it (docs/request-shape.md#mapping).
 */
export const MAPPING_LIMITS = { bytes: 16 * 1024, depth: 20, bodyBytes: 1024 * 1024 } as const;

/** A mapping that could not be applied to one event (a directive met a value of the wrong type). */
export class MappingError extends Error {}

// An integer kept with its digits (exact-json.ts) is a number here, a value a mapping copies whole:
// never an object to walk into or rebuild, which would send `{"literal": …}` in its place.
const typeOf = (v: unknown): string =>
  v instanceof NumberLiteral ? "number" : Object.prototype.toString.call(v).slice(8, -1).toLowerCase();
const isPlainObject = (v: unknown): v is Obj => typeOf(v) === "object";

/** Segment's isDirective: an object whose keys are all @-prefixed (or `_metadata`), at least one. */
function directiveKey(v: unknown): string | null {
  if (!isPlainObject(v)) return null;
  let key: string | null = null;
  for (const k of Object.keys(v)) {
    if (k.startsWith("@")) key ??= k;
    else if (k !== "_metadata") return null;
  }
  return key;
}

// ───────────────────────── paths ─────────────────────────

// Segment's get(): `a.b`, `a[0]`, `a["b c"]`, `a['b']`; quotes are dropped from the parts.
const PATH_SPLIT = /\[(?="|'|\d)|\.|(?<="|'|\d)]+/g;

export function parsePath(path: string): string[] {
  if (path === "" || path === ".") return [];
  return path
    .split(PATH_SPLIT)
    .filter((p) => p)
    .map((p) => p.replace(/'|"/g, ""));
}

/**
 * Segment's `prev && prev[key]` walk, own properties only: `__proto__` or `constructor` reach
 * nothing here (in Segment they reach the prototype). Strings answer their index and length.
 */
function walk(obj: unknown, parts: string[]): unknown {
  let acc: unknown = obj;
  for (const key of parts) {
    if (!acc) return acc;
    if (acc instanceof NumberLiteral) acc = undefined;
    else if (typeof acc === "object") acc = Object.hasOwn(acc, key) ? (acc as Obj)[key] : undefined;
    else if (typeof acc === "string") acc = key === "length" || /^\d+$/.test(key) ? acc[key as unknown as number] : undefined;
    else acc = undefined;
  }
  return acc;
}

/** `@path`'s argument: its first `$.` removed, as Segment does, so `$.` is the whole event. */
const pathParts = (path: string) => parsePath(path.replace("$.", ""));

// ───────────────────────── templates ─────────────────────────

// `{{{a.b}}}` or `{{a.b}}`, tried in that order at each place, in one pass over the template.
const PLACEHOLDER = /\{\{\{([^}]+)\}\}\}|\{\{([^}]+)\}\}/g;

/**
 * Segment's render(): each `{{{a.b}}}` and `{{a.b}}` replaced by the value's String(), nothing when
 * absent or null. One pass (docs/request-shape.md#mapping): Segment replaces the triple braces
 * first and then scans the result for double ones, so event text holding `{{…}}` was expanded as a
 * template; here an inserted value is never read again, whatever it holds.
 */
export function renderTemplate(template: string, data: unknown, encode: (s: string) => string = (s) => s): string {
  let length = template.length;
  return template.replace(PLACEHOLDER, (_match, triple: string | undefined, double: string | undefined) => {
    const value = walk(data, parsePath((triple ?? double ?? "").trim()));
    const text = value === undefined || value === null ? "" : encode(String(value));
    length += text.length;
    if (length > MAPPING_LIMITS.bodyBytes)
      throw new MappingError(`@template: it renders more than ${MAPPING_LIMITS.bodyBytes / 1024 / 1024} MB for this event`);
    return text;
  });
}

/** The paths a template reads, for URL templates (url-template.ts). */
export function templatePaths(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{\{\{([^}]+)\}\}\}|\{\{([^}]+)\}\}/g)) out.push((m[1] ?? m[2]).trim());
  return out;
}

// ───────────────────────── evaluation ─────────────────────────

type Compiled = (payload: unknown) => unknown;

/**
 * A mapping compiled once (per destination and batch) into closures: paths split once, not per
 * event. The result is the body, as Segment's Data field gives it: usually an object, the whole
 * event for `{"@path": "$."}`, undefined when a top-level directive finds nothing.
 */
export function compileMapping(mapping: Json): (event: Obj) => unknown {
  const run = compile(mapping);
  return (event) => {
    const body = removeUndefined(run(event));
    if (jsonSize(body, new Map(), MAPPING_LIMITS.bodyBytes) > MAPPING_LIMITS.bodyBytes)
      throw new MappingError(`it gives a body larger than ${MAPPING_LIMITS.bodyBytes / 1024 / 1024} MB for this event`);
    return body;
  };
}

/**
 * About how many characters JSON.stringify writes for a value (strings counted without escapes),
 * stopping once past `limit`. A value copied many times over (`{"@path": "$."}` a thousand times)
 * is one object referenced many times: each is sized once (`seen`), so this costs what the
 * mapping's output holds, not what it would write.
 */
function jsonSize(v: unknown, seen: Map<object, number>, limit: number): number {
  if (typeof v === "string") return v.length + 2;
  if (typeof v !== "object" || v === null || v instanceof NumberLiteral) return String(v).length;
  const known = seen.get(v);
  if (known !== undefined) return known;
  let size = 2;
  if (Array.isArray(v)) {
    for (const x of v) {
      size += jsonSize(x, seen, limit) + 1;
      if (size > limit) break;
    }
  } else {
    for (const k of Object.keys(v)) {
      size += k.length + 4 + jsonSize((v as Obj)[k], seen, limit);
      if (size > limit) break;
    }
  }
  seen.set(v, size);
  return size;
}

function compile(m: Json): Compiled {
  if (!isPlainObject(m) && !Array.isArray(m)) return () => m;
  const key = directiveKey(m);
  if (key) return compileDirective(key, (m as Obj)[key]);
  if (Array.isArray(m)) {
    const items = m.map(compile);
    return (p) => items.map((f) => f(p));
  }
  const entries = Object.keys(m).map((k) => [k, compile((m as Obj)[k])] as const);
  return (p) => {
    const out: Obj = {};
    for (const [k, f] of entries) out[k] = f(p);
    return out;
  };
}

/** A directive argument that must be a string: a literal one is used as is, a directive's result checked at run time. */
function stringArg(name: string, v: Json, use: (s: string) => Compiled): Compiled {
  if (typeof v === "string") return use(v);
  const inner = compile(v);
  return (p) => {
    const s = inner(p);
    if (typeof s !== "string") throw new MappingError(`${name}: expected string, got ${typeOf(s)}`);
    return use(s)(p);
  };
}

function compileDirective(name: string, v: Json): Compiled {
  switch (name) {
    case "@path":
      return stringArg(name, v, (path) => {
        const parts = pathParts(path);
        return (p) => walk(p, parts);
      });
    case "@template":
      return stringArg(name, v, (t) => (p) => renderTemplate(t, p));
    case "@literal":
      return compile(v);
    case "@if":
      return compileIf(v as Obj);
    case "@arrayPath":
      return compileArrayPath(v as Json[]);
    default:
      // checkMapping refuses these at save; a stored mapping that has one fails the event loudly.
      return () => {
        throw new MappingError(`${name} is not a supported directive`);
      };
  }
}

function compileIf(opts: Obj): Compiled {
  const then = opts.then === undefined ? null : compile(opts.then);
  // Segment tests `else` for truthiness: an `else` of 0, "" or false gives nothing.
  const otherwise = opts.else ? compile(opts.else) : null;
  let test: Compiled;
  // Segment looks at `exists` whenever it is given, `blank` only otherwise (checkMapping saw one of them truthy).
  if (opts.exists !== undefined) {
    const f = compile(opts.exists);
    test = (p) => {
      const v = f(p);
      return v !== undefined && v !== null;
    };
  } else {
    const f = compile(opts.blank);
    // Segment's `value != ''`, loose on purpose: 0, false and [] count as blank there, so here too.
    // biome-ignore lint/suspicious/noDoubleEquals: Segment's comparison, kept for identical results
    test = (p) => ((v) => v !== undefined && v !== null && v != "")(f(p));
  }
  return (p) => (test(p) ? then?.(p) : otherwise?.(p));
}

function compileArrayPath([path, shape]: Json[]): Compiled {
  const root: Compiled =
    typeof path === "string"
      ? (
          (parts) => (p) =>
            walk(p, parts)
        )(pathParts(path))
      : compile(path);
  const item = isPlainObject(shape) && Object.keys(shape).length > 0 ? compile(shape) : null;
  return (p) => {
    const r = root(p);
    if (!item || (!isPlainObject(r) && !Array.isArray(r))) return r;
    return (Array.isArray(r) ? r : [r]).map((x) => item(x));
  };
}

/**
 * Segment's removeUndefined: keys whose value is undefined go; array items stay (JSON shows them as
 * null). A value met again (the event copied many times over) gives the copy already made, so the
 * output shares it as the mapping's result did rather than growing with each reference.
 */
function removeUndefined(v: unknown, done = new Map<object, unknown>()): unknown {
  if (!Array.isArray(v) && !isPlainObject(v)) return v;
  const known = done.get(v);
  if (known !== undefined) return known;
  let out: unknown;
  if (Array.isArray(v)) out = v.map((x) => removeUndefined(x, done));
  else {
    const o: Obj = {};
    for (const k of Object.keys(v)) if (v[k] !== undefined) o[k] = removeUndefined(v[k], done);
    out = o;
  }
  done.set(v, out);
  return out;
}

// ───────────────────────── validation ─────────────────────────

export type MappingIssue = { path: (string | number)[]; message: string };

/**
 * What is wrong with a mapping, each issue at its place in it (`data.email.@template`), or [].
 * Segment's own validation rules for these directives, plus: the top level is an object (a
 * directive or the body's fields, as Segment's Data field is), `@if` names `exists` or `blank`, directives outside the subset are refused by name, and the
 * mapping stays within MAPPING_LIMITS.
 */
export function checkMapping(mapping: unknown): MappingIssue[] {
  const issues: MappingIssue[] = [];
  if (!isPlainObject(mapping)) {
    return [{ path: [], message: 'A mapping is a JSON object: a directive like {"@path": "$."} or the body\'s fields' }];
  }
  // A whole Webhooks (Actions) subscription ({url, method, data, …}) pasted: its data field is the mapping.
  if ("data" in mapping && "url" in mapping) {
    return [{ path: [], message: "This is a whole Segment subscription: paste its data field here, and set its url and method above" }];
  }
  const text = JSON.stringify(mapping);
  if (new TextEncoder().encode(text).length > MAPPING_LIMITS.bytes) {
    return [{ path: [], message: `At most ${MAPPING_LIMITS.bytes / 1024} KB of JSON` }];
  }
  // Each check returns what add returns, undefined: `return add(…)` ends the check at its first problem.
  const add = (path: (string | number)[], message: string): undefined => {
    issues.push({ path, message });
  };
  const value = (v: unknown, path: (string | number)[]): undefined => {
    if (path.length > MAPPING_LIMITS.depth) return add(path, `Nested more than ${MAPPING_LIMITS.depth} levels deep`);
    // Read from the JSON as a double: its digits are gone before it is saved (docs/webhooks.md#numbers).
    if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v))
      return add(path, "An integer beyond 2^53 loses digits when saved: write it as a string, or read it from the event with @path");
    const key = isPlainObject(v) ? Object.keys(v).find((k) => k.startsWith("@")) : undefined;
    if (key !== undefined) return directive(v as Obj, path);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) value(v[i], [...path, i]);
    else if (isPlainObject(v)) for (const k of Object.keys(v)) value(v[k], [...path, k]);
  };
  const stringOrDirective = (v: unknown, path: (string | number)[]): undefined => {
    if (typeof v === "string") return;
    if (directiveKey(v)) return directive(v as Obj, path);
    const t = typeOf(v);
    add(path, `Should be a string or a mapping directive, not ${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`);
  };
  const directive = (obj: Obj, path: (string | number)[]): undefined => {
    const keys = Object.keys(obj).filter((k) => k !== "_metadata");
    if (keys.length > 1) return add(path, `A directive object has one @-prefixed key and nothing else; this one has ${keys.join(", ")}`);
    const name = keys[0];
    const arg = obj[name];
    const at = [...path, name];
    if (KNOWN_UNSUPPORTED.includes(name)) {
      return add(at, `${name} is a Segment directive Eventrail does not support; supported: ${SUPPORTED_DIRECTIVES.join(", ")}`);
    }
    switch (name) {
      case "@path":
      case "@template":
        return stringOrDirective(arg, at);
      case "@literal":
        return value(arg, at);
      case "@if": {
        if (!isPlainObject(arg)) return add(at, "@if takes an object with an exists or a blank key, and then / else");
        if (!arg.exists && !arg.blank) add(at, '@if needs an exists or a blank key (a directive such as {"@path": "$.userId"})');
        for (const k of Object.keys(arg)) {
          if (!["exists", "blank", "then", "else"].includes(k)) add([...at, k], "@if takes only exists, blank, then and else");
          else value(arg[k], [...at, k]);
        }
        return;
      }
      case "@arrayPath": {
        if (!Array.isArray(arg) || arg.length < 1 || arg.length > 2) {
          return add(at, '@arrayPath takes [path, item mapping], like ["$.properties.products", {"id": {"@path": "$.sku"}}]');
        }
        stringOrDirective(arg[0], [...at, 0]);
        if (arg.length === 2) value(arg[1], [...at, 1]);
        return;
      }
      default:
        return add(at, `${name} is not a mapping directive; supported: ${SUPPORTED_DIRECTIVES.join(", ")}`);
    }
  };
  value(mapping, []);
  return issues;
}
