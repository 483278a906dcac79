/**
 * Reading JSON text that JSON.stringify (or a client's serializer JSON.parse accepted) wrote,
 * without parsing it: the character codes of its structure, and the end of a string. Strings are
 * most of such a text's bytes, and native indexOf skips them. No Node import: the dashboard's
 * bundle reads the seed's body with it too (lib/webhooks/payload-text.ts).
 */
export const QUOTE = 34;
export const BACKSLASH = 92;
export const COLON = 58;
export const COMMA = 44;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;

/** Index of the quote that closes the string opened at `open` (one after an even run of backslashes); -1 if none. */
export function closingQuote(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let run = 0;
    while (text.charCodeAt(i - 1 - run) === BACKSLASH) run++;
    if (run % 2 === 0) return i;
  }
  return -1;
}
