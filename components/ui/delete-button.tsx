"use client";

import type { ReactNode } from "react";
import { ConfirmButton } from "./confirm-button";

/**
 * A detail page's "Delete": asks in the in-app dialog first, says what deleting does, and shows a
 * failure inside the dialog. The page navigates away on success (the mutation's onSuccess).
 */
export function DeleteButton({
  title,
  confirmLabel,
  children,
  busy,
  error,
  onConfirm,
}: {
  /** The dialog's question, e.g. `Delete "Orders service"?`. */
  title: string;
  confirmLabel: string;
  /** What deleting does, in a sentence. */
  children: ReactNode;
  busy: boolean;
  error: unknown;
  onConfirm: () => void;
}) {
  return (
    <ConfirmButton
      label="Delete"
      variant="danger"
      tone="danger"
      title={title}
      confirmLabel={confirmLabel}
      busy={busy}
      error={error}
      onConfirm={() => onConfirm()}
    >
      {children}
    </ConfirmButton>
  );
}
