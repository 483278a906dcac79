import "server-only";

/**
 * Input no Management API field may carry, whatever its schema says (docs/management-api.md#errors):
 * Postgres refuses NUL in text and jsonb (`invalid byte sequence … 0x00`, 22021/22P05) and unpaired
 * UTF-16 surrogates in jsonb, and a JSON tree deeper than MAX_INPUT_DEPTH is no setting anyone means
 * (an audience condition 3,000 deep overflowed the validator's stack). Checked on the raw input, keys
 * included, before the endpoint's schema, so the 422 names the field instead of the database failing.
 */
export const MAX_INPUT_DEPTH = 64;

export type Unstorable = { path: string; message: string };

// A high surrogate not followed by a low one, or a low one without a high one before it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(s: string): string | null {
  if (s.includes("\u0000")) return "Cannot contain NUL characters (\\u0000)";
  if (LONE_SURROGATE.test(s)) return "Contains an unpaired surrogate: not valid Unicode text";
  return null;
}

/** A key as a field path shows it: NUL and other control characters escaped so the error stays readable. */
const printable = (key: string) =>
  [...key]
    .map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c))
    .join("");

/** The first NUL, lone surrogate or over-deep node in a parsed JSON body or query, with its field path; null when clean. */
export function findUnstorableInput(raw: unknown): Unstorable | null {
  const walk = (v: unknown, path: string[]): Unstorable | null => {
    if (typeof v === "string") {
      const problem = textProblem(v);
      return problem ? { path: path.join(".") || "_", message: problem } : null;
    }
    if (v === null || typeof v !== "object") return null;
    if (path.length >= MAX_INPUT_DEPTH) {
      return { path: path[0] ?? "_", message: `Nested more than ${MAX_INPUT_DEPTH} levels deep` };
    }
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (const [key, child] of entries) {
      const keyProblem = textProblem(key);
      if (keyProblem) return { path: [...path, printable(key)].join("."), message: `Field name: ${keyProblem}` };
      const found = walk(child, [...path, key]);
      if (found) return found;
    }
    return null;
  };
  return walk(raw, []);
}
