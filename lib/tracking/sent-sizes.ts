import "server-only";
import { CLOSE_BRACE, CLOSE_BRACKET, closingQuote, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "../platform/json-text";
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
      if (i === -1) return sizes; // unterminated: cannot happen after JSON.parse, but never loop
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
