import "server-only";
/**
 * Finds, in JSON that JSON.stringify produced, what Postgres' jsonb would refuse (and so fail a
 * whole batch's insert): `\u0000`, lone UTF-16 surrogates (well-formed JSON.stringify writes
 * those, and only those, as `\udXXX` escapes), and nesting past its stack limit. The common case
 * (no `\u` escape, few brackets) costs a few native indexOf calls, not a walk per character.
 */
export type JsonScan = { depth: number; hasNul: boolean; hasLoneSurrogate: boolean };

const QUOTE = 34;
const BACKSLASH = 92;

function escapes(json: string): { hasNul: boolean; hasLoneSurrogate: boolean } {
  let hasNul = false;
  let hasLoneSurrogate = false;
  for (let i = json.indexOf("\\u"); i !== -1; i = json.indexOf("\\u", i + 2)) {
    // `\\u0000` is an escaped backslash followed by text: only an odd run of backslashes escapes the u.
    let run = 1;
    while (i - run >= 0 && json.charCodeAt(i - run) === BACKSLASH) run++;
    if (run % 2 === 0) continue;
    const hex = json.slice(i + 2, i + 6).toLowerCase();
    if (hex === "0000") hasNul = true;
    else if (hex[0] === "d" && hex[1] >= "8") hasLoneSurrogate = true;
  }
  return { hasNul, hasLoneSurrogate };
}

/** Upper bound of the nesting depth: the number of `{` and `[` (stops counting past `limit`). */
function bracketCount(json: string, limit: number): number {
  let count = 0;
  for (const open of ["{", "["]) {
    for (let i = json.indexOf(open); i !== -1 && count <= limit; i = json.indexOf(open, i + 1)) count++;
  }
  return count;
}

function exactDepth(json: string): number {
  let depth = 0;
  let maxDepth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) i++;
    } else if (c === QUOTE) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return maxDepth;
}

/** Depth is exact when it may exceed `depthLimit`; otherwise it is only known to be within it. */
export function scanSerializedJson(json: string, depthLimit = 64): JsonScan {
  const brackets = bracketCount(json, depthLimit);
  const depth = brackets <= depthLimit ? brackets : exactDepth(json);
  return { depth, ...escapes(json) };
}
