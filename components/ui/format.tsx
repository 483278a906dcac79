"use client";

import { useEffect, useState } from "react";

/**
 * "1 attempt", "19 attempts", "2 deliveries": a count with its noun, singular only for exactly one.
 * Every count the dashboard prints goes through here, so "1 attempts" cannot come back.
 */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? singular : pluralForm}`;
}

/** "just now", "42 s ago", "3 min ago", "2 h ago", "3 days ago"; a future time (clock skew) is "just now". */
export function relativeTime(iso: string, now = Date.now()): string {
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${plural(Math.floor(s / 86400), "day")} ago`;
}

/** "3 min ago" on one line, refreshed while on screen, with the exact time on hover and in `dateTime`. */
export function TimeAgo({ iso }: { iso: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 5_000);
    return () => clearInterval(t);
  }, []);
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()} className="whitespace-nowrap" suppressHydrationWarning>
      {relativeTime(iso, now)}
    </time>
  );
}

export const formatMs = (ms: number | null | undefined) =>
  ms == null ? "—" : ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : `${Math.round(ms)} ms`;

export const formatRate = (r: number | null | undefined) => (r == null ? "—" : `${(r * 100).toFixed(r === 1 || r === 0 ? 0 : 1)}%`);

export const formatBytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(2)} MB`;

export function statusTone(status: number | null | undefined): "green" | "amber" | "red" | "slate" {
  if (status == null) return "slate";
  if (status < 300) return "green";
  if (status < 500) return status === 408 || status === 429 ? "amber" : "red";
  return "red";
}

export const selectClass =
  "block rounded-md border-0 py-1.5 pl-2.5 pr-8 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-inset focus:ring-indigo-600";
