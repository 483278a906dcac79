"use client";

import { useState, type ReactNode } from "react";
import { Button } from "./button";
import { ErrorNote } from "./card";
import { ConfirmDialog } from "./dialog";

/**
 * A button whose action is confirmed in the in-app dialog first (never the browser's confirm()):
 * it says what will happen, shows a failure inside the dialog, and closes when `onConfirm` calls
 * `close` — typically from the mutation's onSuccess.
 */
export function ConfirmButton({
  label,
  title,
  confirmLabel,
  children,
  busy,
  error,
  onConfirm,
  tone = "primary",
  variant = "secondary",
  disabled = false,
  ariaLabel,
}: {
  label: ReactNode;
  /** The dialog's question, e.g. `Rotate the write key?`. */
  title: string;
  confirmLabel: string;
  /** What confirming does, in a sentence. */
  children: ReactNode;
  busy: boolean;
  error: unknown;
  onConfirm: (close: () => void) => void;
  tone?: "primary" | "danger";
  variant?: "primary" | "secondary" | "danger" | "ghost";
  disabled?: boolean;
  ariaLabel?: string;
}) {
  const [confirming, setConfirming] = useState(false);
  const close = () => setConfirming(false);
  return (
    <>
      <Button variant={variant} aria-label={ariaLabel} disabled={disabled} onClick={() => setConfirming(true)}>
        {label}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={title}
        confirmLabel={confirmLabel}
        tone={tone}
        busy={busy}
        onCancel={close}
        onConfirm={() => onConfirm(close)}
      >
        {children}
        {confirming ? <ErrorNote error={error} /> : null}
      </ConfirmDialog>
    </>
  );
}
