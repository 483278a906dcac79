import "server-only";
/**
 * The size of each message as the client sent it: the UTF-8 bytes of its text in the request
 * body (docs/tracking-api.md#limits). The 32 KB limit is the client's limit — Segment's libraries
 * split batches by it, measured on what they serialize — so it is measured before the server adds
 * messageId, receivedAt, a merged context…, which would refuse messages the client saw as legal.
 *
 * Only called when the body is over 32 KB (below that no message in it can be), on text that
 * JSON.parse has already accepted, so the scan needs no error handling: it only tracks strings
 * and nesting to find where each element of the top-level `batch` array starts and ends.
 */
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * Index of the quote that closes the string opened at `open`: one preceded by an even run of
 * backslashes. Strings are most of a body's bytes, and native indexOf skips them
 * (docs/decisions/0003-ingest-throughput.md).
 */
function closingQuote(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); ; i = text.indexOf('"', i + 1)) {
    if (i === -1) return text.length; // unterminated: cannot happen after JSON.parse, but never loop
    let run = 0;
    while (text.charCodeAt(i - 1 - run) === BACKSLASH) run++;
    if (run % 2 === 0) return i;
  }
}

/** Bytes of each element of the body's top-level `batch` array, in order; [] when there is none. */
export function sentBatchMessageBytes(text: string): number[] {
  const sizes: number[] = [];
  let depth = 0;
  let inBatch = false; // inside the value of the top-level "batch" key
  let lastKey: string | null = null;
  let elementStart = -1;
  const endElement = (end: number) => {
    if (elementStart >= 0) sizes.push(Buffer.byteLength(text.slice(elementStart, end).trim(), "utf8"));
    elementStart = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(text, i);
      if (depth === 1 && !inBatch) lastKey = text.slice(start + 1, i);
      if (inBatch && depth === 2 && elementStart < 0) elementStart = start;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2 && c === OPEN_BRACKET && lastKey === "batch") inBatch = true;
      else if (inBatch && depth === 3 && elementStart < 0) elementStart = i;
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (inBatch && depth === 2) {
        endElement(i);
        return sizes;
      }
      depth--;
      continue;
    }
    if (!inBatch || depth !== 2) continue;
    if (c === COMMA) endElement(i);
    else if (elementStart < 0 && c > 32) elementStart = i; // a number, true, false or null element
  }
  return sizes;
}
