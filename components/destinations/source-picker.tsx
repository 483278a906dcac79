"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { ErrorNote } from "@/components/ui/card";
import { FieldError } from "@/components/ui/field";
import { useSources } from "@/components/sources/hooks";

/**
 * The sources a destination receives from. A new destination starts with the workspace's only
 * source checked, and with none checked the section says in place that nothing will arrive
 * (docs/dashboard.md#destinations): a destination must not receive nothing without the user knowing.
 */
export function SourcePicker({
  sourceIds,
  errors,
  preselectOnly,
  onChange,
}: {
  sourceIds: string[];
  errors: Record<string, string[] | undefined>;
  /** A new destination: check the only source once it has loaded. */
  preselectOnly: boolean;
  onChange: (sourceIds: string[]) => void;
}) {
  const sources = useSources();
  const preselected = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the list first arrives; unchecking it later is the user's choice
  useEffect(() => {
    if (!preselectOnly || preselected.current || !sources.data) return;
    preselected.current = true;
    if (sources.data.length === 1 && sourceIds.length === 0) onChange([sources.data[0].id]);
  }, [sources.data]);
  const fieldError = (k: string) => errors[k]?.[0];

  if (sources.isPending) return <p className="text-sm text-slate-500">Loading sources…</p>;
  if (sources.isError) return <ErrorNote error={sources.error} />;
  if (sources.data.length === 0) {
    return (
      <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
        No sources yet, so this destination will receive no calls.{" "}
        <Link href="/sources" className="underline">
          Create a source
        </Link>{" "}
        to send it calls; you can still save and test-send.
      </p>
    );
  }
  return (
    <>
      <fieldset>
        <legend className="sr-only">Connected sources</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {sources.data.map((s) => {
            // The server names a refused source by its place in the list (`sourceIds.2`: not ours, or at its fan-out limit).
            const sourceError = fieldError(`sourceIds.${sourceIds.indexOf(s.id)}`);
            return (
              <div key={s.id}>
                <label className="flex items-center gap-2 rounded-md px-3 py-2 text-sm ring-1 ring-inset ring-slate-200 hover:bg-slate-50">
                  <input
                    type="checkbox"
                    checked={sourceIds.includes(s.id)}
                    aria-invalid={!!sourceError || !!fieldError("sourceIds")}
                    aria-describedby={
                      sourceError ? `dest-source-${s.id}-error` : fieldError("sourceIds") ? "dest-sources-error" : undefined
                    }
                    onChange={(e) => onChange(e.target.checked ? [...sourceIds, s.id] : sourceIds.filter((x) => x !== s.id))}
                  />
                  <bdi className="min-w-0 break-words">{s.name}</bdi>
                  {!s.enabled ? <span className="text-xs text-slate-500">(disabled)</span> : null}
                </label>
                <FieldError id={`dest-source-${s.id}-error`} message={sourceError} className="mt-1" />
              </div>
            );
          })}
        </div>
      </fieldset>
      {sourceIds.length === 0 ? (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
          No source is checked: this destination will receive no calls until you connect one.
        </p>
      ) : null}
      <FieldError id="dest-sources-error" message={fieldError("sourceIds")} />
    </>
  );
}
