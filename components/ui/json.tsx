import type { ReactNode } from "react";

/** Pretty-prints JSON (or shows raw text when it is not JSON), with light syntax colouring. */
export function CodeBlock({ value, label, maxHeight = "max-h-96" }: { value: unknown; label?: string; maxHeight?: string }) {
  const text = typeof value === "string" ? prettyIfJson(value) : JSON.stringify(value, null, 2);
  return (
    <pre aria-label={label} className={`${maxHeight} overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100`}>
      {text === "" ? <span className="text-slate-500">(empty)</span> : colour(text)}
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
    const cls = m[1] ? (m[2] ? "text-sky-300" : "text-emerald-300") : m[3] ? "text-violet-300" : "text-amber-300";
    out.push(<span key={k++} className={cls}>{m[1] ?? m[0]}</span>);
    if (m[2]) out.push(m[2]);
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** Header name/value pairs as a compact table. */
export function HeadersTable({ headers, label }: { headers: Record<string, string> | [string, string][] | null | undefined; label: string }) {
  const rows = !headers ? [] : Array.isArray(headers) ? headers : Object.entries(headers);
  if (rows.length === 0) return <p className="text-xs text-slate-500">No headers.</p>;
  return (
    <table aria-label={label} className="w-full table-fixed text-xs">
      <tbody className="divide-y divide-slate-100">
        {rows.map(([k, v], i) => (
          <tr key={`${k}-${i}`}>
            <th scope="row" className="w-1/3 py-1 pr-3 text-left align-top font-mono font-medium text-slate-600">{k}</th>
            <td className="break-all py-1 font-mono text-slate-900">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
