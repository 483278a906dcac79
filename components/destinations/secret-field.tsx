"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { FieldError, Input } from "@/components/ui/field";

/** A secret input with reveal, copy and, when `generate` is given, generate. */
export function SecretField({
  id,
  label,
  value,
  error,
  hint,
  placeholder,
  onChange,
  generate,
}: {
  id: string;
  label: string;
  value: string;
  error?: string;
  hint?: string;
  placeholder?: string;
  onChange: (v: string) => void;
  /** absent for a secret someone else issues (an OAuth2 client secret) */
  generate?: () => string;
}) {
  const [shown, setShown] = useState(false);
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          id={id}
          type={shown ? "text" : "password"}
          autoComplete="off"
          spellCheck={false}
          value={value}
          placeholder={placeholder}
          aria-invalid={!!error}
          aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined}
          onChange={(e) => onChange(e.target.value)}
          className="min-w-48 flex-1 basis-48 font-mono"
        />
        <Button variant="secondary" aria-label={`${shown ? "Hide" : "Reveal"} ${label.toLowerCase()}`} onClick={() => setShown((s) => !s)}>
          {shown ? "Hide" : "Reveal"}
        </Button>
        {generate ? (
          <Button
            variant="secondary"
            aria-label={`Generate ${label.toLowerCase()}`}
            onClick={() => {
              onChange(generate());
              setShown(true);
            }}
          >
            Generate
          </Button>
        ) : null}
        {value ? <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} /> : null}
      </div>
      {error ? (
        <FieldError id={`${id}-error`} message={error} />
      ) : hint ? (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
