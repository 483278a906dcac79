/**
 * One pass over JSON that JSON.stringify produced, finding what Postgres' jsonb would refuse
 * (and so fail a whole batch's insert): `\u0000`, lone UTF-16 surrogates (well-formed
 * JSON.stringify writes those, and only those, as `\udXXX` escapes), and nesting past its
 * stack limit. Cheaper than walking the object graph, and safe on any depth.
 */
export type JsonScan = { depth: number; hasNul: boolean; hasLoneSurrogate: boolean };

const QUOTE = 34;
const BACKSLASH = 92;
const U = 117;

export function scanSerializedJson(json: string): JsonScan {
  let depth = 0;
  let maxDepth = 0;
  let hasNul = false;
  let hasLoneSurrogate = false;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) {
        if (json.charCodeAt(i + 1) === U) {
          const hex = json.slice(i + 2, i + 6).toLowerCase();
          if (hex === "0000") hasNul = true;
          else if (hex[0] === "d" && hex[1] >= "8") hasLoneSurrogate = true;
          i += 5;
        } else i += 1;
      }
    } else if (c === QUOTE) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return { depth: maxDepth, hasNul, hasLoneSurrogate };
}
