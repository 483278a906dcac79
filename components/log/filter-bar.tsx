"use client";

import { useEffect, useId, useRef, useState } from "react";
import { PAYLOAD_SEARCH_MAX_DAYS } from "@/lib/request-log/limits";
import { MESSAGE_TYPES } from "@/lib/webhooks/payload";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/field";
import { plural, selectClass } from "@/components/ui/format";
import { useDestinations } from "@/components/destinations/hooks";
import type { LogFilter, LogView } from "./hooks";

const RANGES = [
  { label: "Last hour", ms: 3600_000 },
  { label: "Last 24 hours", ms: 86_400_000 },
  { label: "Last 7 days", ms: 7 * 86_400_000 },
] as const;

/** datetime-local shows local time without a zone; the URL keeps ISO instants. */
const toLocalInput = (iso?: string) => {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : undefined);

const normalised = (d: string) => d.trim() || undefined;

/** Every filter is named by a visible label, not only by its placeholder. */
const FIELD_LABEL = "mb-1 block text-xs font-medium text-slate-600";

/** A select with its visible label. */
function SelectFilter({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value?: string;
  onChange: (v: string | undefined) => void;
  children: React.ReactNode;
}) {
  const id = useId();
  return (
    <div className="min-w-0">
      <label htmlFor={id} className={FIELD_LABEL}>
        {label}
      </label>
      <select
        id={id}
        className={`${selectClass} w-full min-w-0`}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        {children}
      </select>
    </div>
  );
}

/** How long typing pauses before a text filter applies. */
export const TEXT_FILTER_DEBOUNCE_MS = 300;

/**
 * A text filter that applies as you type (after a short pause, so each keystroke is not a query),
 * at once on Enter, and when focus leaves. The URL stays the source of truth: clearing the filters
 * or going back updates the field.
 */
function TextFilter({
  label,
  value,
  placeholder,
  onApply,
}: {
  label: string;
  value?: string;
  placeholder: string;
  onApply: (v: string | undefined) => void;
}) {
  const [draft, setDraft] = useState(value ?? "");
  const apply = useRef(onApply);
  apply.current = onApply;
  // Keep what is being typed ("Order " with its space) when the URL catches up with it.
  useEffect(() => setDraft((d) => (normalised(d) === value ? d : (value ?? ""))), [value]);
  useEffect(() => {
    const v = normalised(draft);
    if (v === value) return;
    const t = setTimeout(() => apply.current(v), TEXT_FILTER_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [draft, value]);
  const applyNow = () => {
    const v = normalised(draft);
    if (v !== value) onApply(v);
  };
  const id = useId();
  return (
    <div className="min-w-0">
      <label htmlFor={id} className={FIELD_LABEL}>
        {label}
      </label>
      <Input
        id={id}
        type="search"
        placeholder={placeholder}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={applyNow}
        onKeyDown={(e) => e.key === "Enter" && applyNow()}
        className="w-full font-mono text-xs"
      />
    </div>
  );
}

/**
 * The log's filters. On a phone they sit behind a "Filters" button (a disclosure), so the first
 * attempt is on the first screen; from md up they are always shown.
 */
export function FilterBar({
  filter,
  view,
  onChange,
  onClear,
}: {
  filter: LogFilter;
  view: LogView;
  onChange: (patch: LogFilter) => void;
  onClear: () => void;
}) {
  const destinations = useDestinations();
  const active = Object.keys(filter).length;
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const set = (k: keyof LogFilter) => (v: string | undefined) => onChange({ [k]: v });
  // The time button last pressed, while the window is still the one it set (aria-pressed).
  const [picked, setPicked] = useState<{ label: string; from: string } | null>(null);

  return (
    <>
      <div className="mb-3 flex items-center gap-2 md:hidden">
        <Button variant="secondary" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
          {open ? "Hide filters" : active ? `Filters (${active})` : "Filters"}
        </Button>
        {active && !open ? (
          <Button variant="ghost" onClick={onClear}>
            Clear {plural(active, "filter")}
          </Button>
        ) : null}
      </div>
      <search
        id={panelId}
        className={`mb-4 space-y-3 rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200 md:block ${open ? "block" : "hidden"}`}
        aria-label={view === "messages" ? "Filter messages" : "Filter attempts"}
      >
        <p className="sr-only">Filters apply as you change them.</p>
        <div>
          <TextFilter
            label="Search payloads"
            placeholder="Search inside payloads, e.g. an order id or an email"
            value={filter.q}
            // A search reads one window of messages: the last 24 hours unless a window is chosen.
            onApply={(q) => onChange(q && !filter.from ? { q, from: new Date(Date.now() - 86_400_000).toISOString() } : { q })}
          />
          <p className="mt-1 text-xs text-slate-500">
            Searches the payloads of messages received in the time window below (at most {PAYLOAD_SEARCH_MAX_DAYS} days; the last 24 hours
            unless you choose one).
          </p>
        </div>
        <div className="grid grid-cols-2 gap-2 sm:gap-3 lg:grid-cols-4">
          <SelectFilter label="Destination" value={filter.destinationId} onChange={set("destinationId")}>
            <option value="">All destinations</option>
            {destinations.data?.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </SelectFilter>
          {view === "messages" ? (
            <SelectFilter label="Delivery status" value={filter.state} onChange={set("state")}>
              <option value="">Any status</option>
              <option value="delivered">Delivered</option>
              <option value="retrying">Retrying</option>
              <option value="failed">Failed</option>
              <option value="waiting">Waiting</option>
            </SelectFilter>
          ) : (
            <SelectFilter label="Outcome" value={filter.outcome} onChange={set("outcome")}>
              <option value="">Any outcome</option>
              <option value="success">Success</option>
              <option value="retry">Retrying</option>
              <option value="failed">Failed</option>
            </SelectFilter>
          )}
          <SelectFilter label="HTTP status" value={filter.statusClass} onChange={set("statusClass")}>
            <option value="">Any status</option>
            {["2xx", "3xx", "4xx", "5xx"].map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
            <option value="none">No response</option>
          </SelectFilter>
          <SelectFilter label="Event type" value={filter.type} onChange={set("type")}>
            <option value="">Any type</option>
            {MESSAGE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectFilter>
          <TextFilter label="Event name" placeholder="event (exact)" value={filter.event} onApply={(event) => onChange({ event })} />
          <TextFilter label="User ID" placeholder="userId" value={filter.userId} onApply={(userId) => onChange({ userId })} />
          <TextFilter
            label="Message ID"
            placeholder="messageId"
            value={filter.messageId}
            onApply={(messageId) => onChange({ messageId })}
          />
          <div className="col-span-2 lg:col-span-1">
            <TextFilter label="URL" placeholder="https://… (exact URL)" value={filter.url} onApply={(url) => onChange({ url })} />
          </div>
        </div>
        {filter.backfillId ? (
          // Set by a backfill's "See its attempts" (the destination page, docs/routing.md#backfill).
          <p className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
            Deliveries of:
            <Button
              variant="secondary"
              className="text-xs"
              aria-label="Remove the filter backfill"
              onClick={() => onChange({ backfillId: undefined })}
            >
              backfill {filter.backfillId.slice(0, 8)} ✕
            </Button>
          </p>
        ) : null}
        {filter.status || filter.errorKind ? (
          // Set by a failure group's "View in the log" (the overview): shown so they can be seen and removed.
          <p className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
            Reason:
            {filter.status ? (
              <Button
                variant="secondary"
                className="text-xs"
                aria-label={`Remove the filter status ${filter.status}`}
                onClick={() => onChange({ status: undefined })}
              >
                status {filter.status} ✕
              </Button>
            ) : null}
            {filter.errorKind ? (
              <Button
                variant="secondary"
                className="text-xs"
                aria-label={`Remove the filter error ${filter.errorKind}`}
                onClick={() => onChange({ errorKind: undefined })}
              >
                error {filter.errorKind} ✕
              </Button>
            ) : null}
          </p>
        ) : null}
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-xs font-medium text-slate-500">Time</span>
          {RANGES.map((r) => {
            const pressed = picked?.label === r.label && picked.from === filter.from && !filter.to;
            return (
              <Button
                key={r.label}
                variant="secondary"
                aria-pressed={pressed}
                className={`text-xs ${pressed ? "bg-indigo-50 text-indigo-800 ring-indigo-300" : ""}`}
                onClick={() => {
                  const from = new Date(Date.now() - r.ms).toISOString();
                  setPicked({ label: r.label, from });
                  onChange({ from, to: undefined });
                }}
              >
                {pressed ? "✓ " : ""}
                {r.label}
              </Button>
            );
          })}
          <label className="flex items-center gap-1 text-xs text-slate-500">
            From
            <input
              type="datetime-local"
              aria-label="From"
              className={`${selectClass} pr-2 text-xs`}
              value={toLocalInput(filter.from)}
              onChange={(e) => onChange({ from: fromLocalInput(e.target.value) })}
            />
          </label>
          <label className="flex items-center gap-1 text-xs text-slate-500">
            To
            <input
              type="datetime-local"
              aria-label="To"
              className={`${selectClass} pr-2 text-xs`}
              value={toLocalInput(filter.to)}
              onChange={(e) => onChange({ to: fromLocalInput(e.target.value) })}
            />
          </label>
          <span className="flex-1" />
          {active ? (
            <Button variant="ghost" onClick={onClear}>
              Clear {plural(active, "filter")}
            </Button>
          ) : null}
        </div>
      </search>
    </>
  );
}
