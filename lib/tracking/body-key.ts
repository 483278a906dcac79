import "server-only";

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** The index of the quote that closes the string opened at `open`, or -1 when it is never closed. */
function stringEnd(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let run = 0;
    while (text.charCodeAt(i - 1 - run) === BACKSLASH) run++;
    if (run % 2 === 0) return i;
  }
  return -1;
}

/** A JSON string literal's value, or null when it is not a valid one. */
function stringValue(literal: string): string | null {
  if (!literal.includes("\\")) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}

/**
 * The `writeKey` member of a call's body, found without parsing the body
 * (docs/tracking-api.md#authentication): a call whose key is in its body is authenticated before
 * its body is parsed, so a body without a served key costs this one pass, however deeply it nests.
 * What JSON.parse would read: the last `writeKey` member of the top-level object, when it is a
 * non-empty string; null otherwise. A body that is not JSON may still yield a key: parsing it after
 * authentication refuses it as before.
 */
export function writeKeyInBody(text: string): string | null {
  let found: string | null = null;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return found;
      if (depth === 1) {
        let next = end + 1;
        while (isSpace(text.charCodeAt(next))) next++;
        // A string followed by `:` at the top level is a member's name.
        if (text.charCodeAt(next) === COLON && stringValue(text.slice(i, end + 1)) === "writeKey") {
          let value = next + 1;
          while (isSpace(text.charCodeAt(value))) value++;
          const valueEnd = text.charCodeAt(value) === QUOTE ? stringEnd(text, value) : -1;
          const key = valueEnd === -1 ? null : stringValue(text.slice(value, valueEnd + 1));
          found = key === "" ? null : key;
        }
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      // Only an object's members name a key.
      if (depth === 0 && c !== OPEN_BRACE) return null;
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return found;
    }
  }
  return found;
}
