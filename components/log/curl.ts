import { isReservedHeader } from "@/lib/webhooks/rules";

/**
 * "Copy as cURL" for an attempt or a captured request: one command that sends the same request
 * again. Header values are write-only (docs/webhooks.md#attempt-log): unless the member may reveal
 * them, every value but Eventrail's own headers (signatures, ids, content type) is masked here, even
 * when the caller passed it in full, so a command pasted into a ticket never carries a token.
 */

export const MASK = "••••";

/** The masked form the attempt log stores: a long token keeps its last 4 characters so it can be told apart. */
export const maskValue = (v: string) => (v.startsWith(MASK) ? v : v.length < 20 ? MASK : `${MASK}${v.slice(-4)}`);

/** Headers curl sets itself from the command (or that describe a connection, not the request). */
const CURL_SETS = new Set(["content-length", "host", "connection", "transfer-encoding", "accept-encoding", "expect"]);

/** A POSIX shell word: single-quoted, with each ' written as '\'' (nothing inside is expanded). */
export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export type CurlRequest = { method?: string; url: string; headers: Record<string, string> | [string, string][]; body: string | null };

export function curlCommand(req: CurlRequest, opts: { reveal: boolean }): string {
  const entries = Array.isArray(req.headers) ? req.headers : Object.entries(req.headers);
  const lines = [`curl -X ${(req.method ?? "POST").toUpperCase()} ${shellQuote(req.url)}`];
  let masked = false;
  for (const [name, value] of entries) {
    if (CURL_SETS.has(name.toLowerCase())) continue;
    const shown = opts.reveal || isReservedHeader(name) ? value : maskValue(value);
    if (shown.includes(MASK)) masked = true;
    lines.push(`-H ${shellQuote(`${name}: ${shown}`)}`);
  }
  if (req.body != null && req.body !== "") lines.push(`--data-raw ${shellQuote(req.body)}`);
  const command = lines.join(" \\\n  ");
  return masked ? `# Header values shown as ${MASK} are masked: put the real values in before running.\n${command}` : command;
}
