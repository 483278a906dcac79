"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import type { WriteOnlyValue } from "@/lib/destinations/contract";
import type { WriteOnlyState } from "./form-state";
import { SecretField } from "./secret-field";

/** "set · ••••abcd", or "set" for a value too short to show any of it. */
export const describeStored = (hint: WriteOnlyValue | null): string => (hint?.last4 ? `set · ••••${hint.last4}` : "set");

/**
 * A stored write-only value (docs/signing.md#secrets): "set · ••••abcd" with Reveal, Replace and
 * Remove. Replacing shows the secret input; a value typed on create is that input from the start.
 */
export function WriteOnlyField({
  id,
  label,
  state,
  onChange,
  error,
  hint,
  placeholder,
  generate,
  reveal,
  removable = true,
}: {
  id: string;
  label: string;
  state: WriteOnlyState;
  onChange: (s: WriteOnlyState) => void;
  error?: string;
  hint?: string;
  placeholder?: string;
  generate?: () => string;
  /** Asks the server for the stored value (its own call, for admins). */
  reveal?: () => Promise<string>;
  /** false for a value the setting cannot do without (it is replaced, never removed) */
  removable?: boolean;
}) {
  if (state.action === "replace") {
    return (
      <div className="space-y-1">
        <SecretField
          id={id}
          label={label}
          value={state.value}
          error={error}
          hint={hint}
          placeholder={placeholder}
          onChange={(value) => onChange({ ...state, value })}
          generate={generate}
        />
        {state.stored ? (
          <Button variant="ghost" onClick={() => onChange({ ...state, action: "keep", value: "" })}>
            Keep the current {label.toLowerCase()}
          </Button>
        ) : null}
      </div>
    );
  }
  return (
    <div className="space-y-1">
      <span id={`${id}-label`} className="block text-sm font-medium text-slate-700">
        {label}
      </span>
      {state.action === "remove" ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-amber-700">Removed when you save</span>
          <Button variant="secondary" onClick={() => onChange({ ...state, action: "keep" })}>
            Undo
          </Button>
        </div>
      ) : (
        <StoredValue id={id} label={label} state={state} reveal={reveal}>
          <Button
            variant="secondary"
            aria-label={`Replace ${label.toLowerCase()}`}
            onClick={() => onChange({ ...state, action: "replace" })}
          >
            Replace
          </Button>
          {removable ? (
            <Button
              variant="secondary"
              aria-label={`Remove ${label.toLowerCase()}`}
              onClick={() => onChange({ ...state, action: "remove" })}
            >
              Remove
            </Button>
          ) : null}
        </StoredValue>
      )}
      {error ? (
        <p role="alert" className="text-xs text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The hint of a stored value, with Reveal (fetching it only when asked) and whatever actions follow. */
export function StoredValue({
  id,
  label,
  state,
  reveal,
  children,
}: {
  id: string;
  label: string;
  state: Pick<WriteOnlyState, "stored">;
  reveal?: () => Promise<string>;
  children?: React.ReactNode;
}) {
  const [revealed, setRevealed] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2">
        <code
          id={`${id}-stored`}
          role="note"
          aria-label={label}
          className="min-w-0 rounded-md bg-slate-100 px-2 py-1 font-mono text-xs text-slate-700 [overflow-wrap:anywhere]"
        >
          {revealed ?? describeStored(state.stored)}
        </code>
        {reveal ? (
          revealed === null ? (
            <Button
              variant="secondary"
              aria-label={`Reveal ${label.toLowerCase()}`}
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                setError(null);
                try {
                  setRevealed(await reveal());
                } catch (e) {
                  setError(e as Error);
                } finally {
                  setBusy(false);
                }
              }}
            >
              {busy ? "Revealing…" : "Reveal"}
            </Button>
          ) : (
            <>
              <CopyButton value={revealed} label="Copy" />
              <Button variant="secondary" aria-label={`Hide ${label.toLowerCase()}`} onClick={() => setRevealed(null)}>
                Hide
              </Button>
            </>
          )
        ) : null}
        {children}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
