import "server-only";
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
// With its extension: the ingest and worker bundles leave packages external, and Node's ESM loader
// resolves a deep import of a CommonJS package only by its file name.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The tracking plan's JSON Schema compiler (docs/tracking-plans.md#schemas): ajv with ajv-formats,
 * draft 2020-12 by default and draft-07 when a schema's `$schema` names it. Pure: no I/O. Both the
 * Management API (refusing a schema with the compiler's reason) and ingest (compiling a plan once per
 * version) use it, so a saved plan always compiles.
 */

/** What a schema may cost to compile and run (docs/tracking-plans.md#limits). */
export const SCHEMA_LIMITS = {
  /** one schema's JSON text */
  bytes: 64 * 1024,
  /** nesting of objects and arrays in one schema */
  depth: 32,
  /** one `pattern` (or `patternProperties` key) */
  patternChars: 256,
  /** compiling a whole plan */
  compileMs: 2000,
} as const;

/** One finding about a call: where (a JSON pointer into the message), which keyword, and ajv's words. */
export type Violation = { path: string; rule: string; message: string };

export type SchemaProblem = { message: string };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;

/** A fresh pair of compilers: one per compiled plan, so a plan's old versions go with their cache entry. */
function compilers() {
  const options = {
    allErrors: true,
    // Segment's exports carry keywords of their own (labels, id); unknown keywords are ignored, not refused.
    strict: false,
    // A remote $ref is never fetched: it fails to compile (no loadSchema).
    ownProperties: true,
  } as const;
  const modern = new Ajv2020(options);
  const draft07 = new Ajv(options);
  addFormats(modern);
  addFormats(draft07);
  return { modern, draft07 };
}
type Compilers = ReturnType<typeof compilers>;

/**
 * A pattern that can backtrack for exponential time: a quantified group that contains a quantifier
 * itself, as in `(a+)+` or `(\w*x?)*`. Refused rather than run on every call (docs/tracking-plans.md#limits).
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*?}](?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/;
// A backreference inside a repeated group backtracks the same way.
const BACKREFERENCE = /\\[1-9]/;

function patternProblem(pattern: string): string | null {
  if (pattern.length > SCHEMA_LIMITS.patternChars)
    return `A pattern is at most ${SCHEMA_LIMITS.patternChars} characters (this one has ${pattern.length})`;
  if (NESTED_QUANTIFIER.test(pattern) || BACKREFERENCE.test(pattern))
    return `The pattern ${JSON.stringify(pattern.slice(0, 60))} nests repetition (like (a+)+) or uses a backreference, which can take exponential time; write it without`;
  return null;
}

/** Size, depth and pattern limits, checked before the compiler sees the schema. */
function limitProblem(schema: unknown): string | null {
  const text = JSON.stringify(schema);
  if (text === undefined) return "A schema is a JSON object";
  if (Buffer.byteLength(text, "utf8") > SCHEMA_LIMITS.bytes) return `A schema is at most ${SCHEMA_LIMITS.bytes / 1024} KB of JSON`;
  const walk = (v: unknown, depth: number, parentKey: string | null): string | null => {
    if (depth > SCHEMA_LIMITS.depth) return `A schema nests at most ${SCHEMA_LIMITS.depth} levels`;
    if (Array.isArray(v)) {
      for (const x of v) {
        const p = walk(x, depth + 1, null);
        if (p) return p;
      }
      return null;
    }
    if (v === null || typeof v !== "object") return null;
    for (const [k, x] of Object.entries(v)) {
      if (k === "pattern" && typeof x === "string" && parentKey !== "properties") {
        const p = patternProblem(x);
        if (p) return p;
      }
      if (k === "patternProperties" && x && typeof x === "object") {
        for (const key of Object.keys(x)) {
          const p = patternProblem(key);
          if (p) return p;
        }
      }
      const p = walk(x, depth + 1, k);
      if (p) return p;
    }
    return null;
  };
  return walk(schema, 0, null);
}

function compileOne(c: Compilers, schema: unknown): ValidateFunction | SchemaProblem {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    return { message: 'A schema is a JSON object, like {"type": "object"}' };
  const limit = limitProblem(schema);
  if (limit) return { message: limit };
  const declared = (schema as { $schema?: unknown }).$schema;
  const ajv = typeof declared === "string" && DRAFT_07.test(declared) ? c.draft07 : c.modern;
  try {
    // A copy: ajv keeps the schema object, and an $id would otherwise clash with the same schema
    // compiled for another rule of the plan.
    const copy = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    delete copy.$id;
    return ajv.compile(copy);
  } catch (err) {
    return { message: err instanceof Error ? err.message : String(err) };
  }
}

/** Whether one schema compiles within the limits: null, or the compiler's reason. */
export function schemaProblem(schema: unknown): string | null {
  const r = compileOne(compilers(), schema);
  return typeof r === "function" ? null : r.message;
}

/** The calls a plan checks, and where each keeps what its rule checks (docs/tracking-plans.md#rules). */
export const PLANNED_TYPES = ["track", "identify", "group", "page", "screen"] as const;
export type PlannedType = (typeof PLANNED_TYPES)[number];
export const CHECKED_FIELD: Record<PlannedType, "properties" | "traits"> = {
  track: "properties",
  identify: "traits",
  group: "traits",
  page: "properties",
  screen: "properties",
};

export type PlanRule = { type: PlannedType; event?: string | null; schema: Record<string, unknown> };

/** Rules as stored (written through the contract's schema by the API). */
export const storedRules = (raw: unknown): PlanRule[] => (Array.isArray(raw) ? (raw as PlanRule[]) : []);

/** The rule's key: the event (track) or name (page, screen); identify and group have one rule each. */
export const ruleKey = (type: string, event: string | null | undefined) => `${type}\u0000${event ?? ""}`;

export type CompiledPlan = {
  /** the validator of a call of this type and event/name, if the plan has a rule for it */
  validator(type: string, event: string | null): ValidateFunction | null;
};

/**
 * Compiles every rule of a plan with one pair of compilers. Throws nothing: a rule that does not
 * compile is reported by its index, as the API's field errors name it (`rules.3.schema`).
 */
export function compilePlan(rules: PlanRule[]): { plan: CompiledPlan; problems: { index: number; message: string }[] } {
  const started = performance.now();
  const c = compilers();
  const byKey = new Map<string, ValidateFunction>();
  const problems: { index: number; message: string }[] = [];
  rules.forEach((rule, index) => {
    if (performance.now() - started > SCHEMA_LIMITS.compileMs) {
      problems.push({ index, message: `The plan took more than ${SCHEMA_LIMITS.compileMs} ms to compile; make its schemas smaller` });
      return;
    }
    const r = compileOne(c, rule.schema);
    if (typeof r === "function") byKey.set(ruleKey(rule.type, rule.event), r);
    else problems.push({ index, message: r.message });
  });
  return {
    plan: { validator: (type, event) => byKey.get(ruleKey(type, event)) ?? null },
    problems,
  };
}

/** At most this many violations are kept per call; the rest are counted in the last one's message. */
export const MAX_VIOLATIONS_PER_CALL = 20;

/**
 * ajv's errors as violations: the path is a JSON pointer into the message (`/properties/price`), a
 * missing required field's path names the field itself.
 */
export function toViolations(errors: ErrorObject[] | null | undefined, field: "properties" | "traits"): Violation[] {
  if (!errors) return [];
  const out = errors.slice(0, MAX_VIOLATIONS_PER_CALL).map((e) => {
    const missing = e.keyword === "required" ? `/${String(e.params.missingProperty).replace(/~/g, "~0").replace(/\//g, "~1")}` : "";
    return { path: `/${field}${e.instancePath}${missing}`, rule: e.keyword, message: e.message ?? e.keyword };
  });
  if (errors.length > MAX_VIOLATIONS_PER_CALL) {
    const last = out[out.length - 1];
    last.message += ` (and ${errors.length - MAX_VIOLATIONS_PER_CALL} more violations not listed)`;
  }
  return out;
}

/** What the plan says about one call: its violations (empty when it conforms), and whether it is unplanned. */
export function checkCall(
  plan: CompiledPlan,
  call: { type: string; event: string | null; name?: unknown; payload: Record<string, unknown> },
): { violations: Violation[]; unplanned: boolean } | null {
  if (!(PLANNED_TYPES as readonly string[]).includes(call.type)) return null;
  const type = call.type as PlannedType;
  const key =
    type === "track" ? call.event : type === "page" || type === "screen" ? (typeof call.name === "string" ? call.name : null) : null;
  // page/screen: the rule for its name, else the type's rule for any name.
  const validate = plan.validator(type, key) ?? (key !== null && type !== "track" ? plan.validator(type, null) : null);
  if (!validate) return { violations: [], unplanned: type === "track" };
  const field = CHECKED_FIELD[type];
  const value = call.payload[field] ?? {};
  if (validate(value)) return { violations: [], unplanned: false };
  return { violations: toViolations(validate.errors, field), unplanned: false };
}
