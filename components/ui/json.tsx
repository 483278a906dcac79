import type { ReactNode } from "react";

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
  return (
    // A scrollable block must be reachable by keyboard (axe: scrollable-region-focusable), so it is a
    // named, focusable region; <section> cannot keep <pre>'s whitespace semantics.
    // biome-ignore lint/a11y/useSemanticElements: see above
    <pre
      role="region"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
      tabIndex={0}
      aria-label={label ?? "Code"}
      className={`${maxHeight} overflow-auto whitespace-pre-wrap rounded-md bg-code p-3 font-mono text-xs leading-relaxed text-code-text [overflow-wrap:anywhere]`}
    >
      {text === "" ? <span className="text-code-muted">(empty)</span> : plain ? text : colour(text)}
    </pre>
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
  const rows = !headers ? [] : Array.isArray(headers) ? headers : Object.entries(headers);
  if (rows.length === 0) return <p className="text-xs text-slate-500">No headers.</p>;
  return (
    <table aria-label={label} className="w-full table-fixed text-xs">
      <tbody className="divide-y divide-slate-100">
        {rows.map(([k, v], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a read-only list in received order; a name may repeat
          <tr key={`${k}-${i}`}>
            <th scope="row" className="w-1/3 py-1 pr-3 text-left align-top font-mono font-medium text-slate-600 [overflow-wrap:anywhere]">
              <bdi>{k}</bdi>
            </th>
            <td className="py-1 font-mono text-slate-900 [overflow-wrap:anywhere]">
              <bdi>{v}</bdi>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
