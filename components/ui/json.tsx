"use client";

import { type ReactNode, useState } from "react";
import { Button } from "./button";
import { middleEllipsis } from "./middle-ellipsis";

/**
 * Past this many lines a block is clamped to its box's height, with a "Show all" button that lets it
 * grow; the whole text is always in the page, so selecting, copying and find-in-page see all of it.
 */
export const CLAMP_LINES = 24;
/** Past this many headers, or characters in one value, a headers table shows the start and "Show all". */
export const CLAMP_HEADERS = 12;
export const CLAMP_VALUE_CHARS = 160;

export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Pretty-prints JSON (or shows raw text when it is not JSON), with light syntax colouring. */
export function CodeBlock({
  value,
  label,
  maxHeight = "max-h-96",
  plain = false,
}: {
  value: unknown;
  label?: string;
  maxHeight?: string;
  /** No JSON colouring (a shell command, say, where "127.0.0.1" is not a number). */
  plain?: boolean;
}) {
  const text = typeof value === "string" ? prettyIfJson(value) : JSON.stringify(value, null, 2);
  const [all, setAll] = useState(false);
  const lines = lineCount(text);
  // A few very long lines wrap into as many rows as many short ones.
  const clamps = lines > CLAMP_LINES || text.length > CLAMP_LINES * 80;
  // A scrollable block must be reachable by keyboard (axe: scrollable-region-focusable), so it is a
  // named, focusable region; <section> cannot keep <pre>'s whitespace semantics.
  return (
    <div className="space-y-1">
      {/* biome-ignore lint/a11y/useSemanticElements: see above */}
      <pre
        role="region"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
        tabIndex={0}
        aria-label={label ?? "Code"}
        className={`${clamps && all ? "" : maxHeight} overflow-auto whitespace-pre-wrap rounded-md bg-code p-3 font-mono text-xs leading-relaxed text-code-text [overflow-wrap:anywhere]`}
      >
        {text === "" ? <span className="text-code-muted">(empty)</span> : plain ? text : colour(text)}
      </pre>
      {clamps ? (
        <Button variant="ghost" className="text-xs" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? "Show less" : `Show all ${lines.toLocaleString("en-US")} lines`}
        </Button>
      ) : null}
    </div>
  );
}

export function prettyIfJson(s: string): string {
  const t = s.trim();
  if (!t || (t[0] !== "{" && t[0] !== "[")) return s;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return s;
  }
}

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

function colour(text: string): ReactNode[] {
  // Colouring a megabyte body token by token would freeze the tab; past 200 KB show it plain.
  if (text.length > 200_000) return [text];
  const out: ReactNode[] = [];
  let last = 0;
  let k = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index! > last) out.push(text.slice(last, m.index));
    // Strings are what a client sent: each is isolated so a direction override inside it stops at its quote.
    const cls = m[1] ? (m[2] ? "user-text text-code-key" : "user-text text-code-string") : m[3] ? "text-code-literal" : "text-code-number";
    out.push(
      <span key={k++} className={cls}>
        {m[1] ?? m[0]}
      </span>,
    );
    if (m[2]) out.push(m[2]);
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** Header name/value pairs as a compact table. */
export function HeadersTable({
  headers,
  label,
}: {
  headers: Record<string, string> | [string, string][] | null | undefined;
  label: string;
}) {
  const [all, setAll] = useState(false);
  const rows = !headers ? [] : Array.isArray(headers) ? headers : Object.entries(headers);
  if (rows.length === 0) return <p className="text-xs text-slate-500">No headers.</p>;
  const shown = all ? rows : rows.slice(0, CLAMP_HEADERS);
  const clamps = rows.length > CLAMP_HEADERS || rows.some(([, v]) => v.length > CLAMP_VALUE_CHARS);
  return (
    <div className="space-y-1">
      <table aria-label={label} className="w-full table-fixed text-xs">
        <tbody className="divide-y divide-slate-100">
          {shown.map(([k, v], i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a read-only list in received order; a name may repeat
            <tr key={`${k}-${i}`}>
              <th scope="row" className="w-1/3 py-1 pr-3 text-left align-top font-mono font-medium text-slate-600 [overflow-wrap:anywhere]">
                <bdi>{k}</bdi>
              </th>
              <td className="py-1 font-mono text-slate-900 [overflow-wrap:anywhere]">
                <bdi>{all ? v : middleEllipsis(v, CLAMP_VALUE_CHARS)}</bdi>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {clamps ? (
        <Button variant="ghost" className="text-xs" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? "Show less" : rows.length > CLAMP_HEADERS ? `Show all ${rows.length} headers` : "Show all of each value"}
        </Button>
      ) : null}
    </div>
  );
}
