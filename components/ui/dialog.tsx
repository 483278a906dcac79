"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A confirmation in a native modal <dialog>: focus moves into it, Escape cancels, and the
 * page behind is inert — keyboard and screen readers get that for free.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  tone = "primary",
  busy = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  tone?: "primary" | "danger";
  busy?: boolean;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Several dialogs can sit closed on one page (one per confirm button): each names itself.
  const titleId = useId();
  // What had focus when it opened: it gets focus back when the dialog closes, unless it is gone or
  // something else took focus meanwhile (a page that moved on focuses its own heading).
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
      // React's autoFocus ran while the dialog was still closed; Cancel, the safe choice, takes focus now.
      d.querySelector<HTMLElement>("[data-initial-focus]")?.focus();
    }
    if (!open && d.open) {
      const hadFocus = d.contains(document.activeElement) || document.activeElement === document.body;
      d.close();
      if (hadFocus && opener.current?.isConnected) opener.current.focus();
      opener.current = null;
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg bg-white p-0 shadow-xl ring-1 ring-slate-200 backdrop:bg-black/50"
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-base font-semibold text-slate-900">
            {title}
          </h2>
          {children ? <div className="mt-2 text-sm text-slate-600">{children}</div> : null}
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={onCancel} data-initial-focus>
              Cancel
            </Button>
            <Button variant={tone} onClick={onConfirm} disabled={busy || confirmDisabled}>
              {busy ? "Working…" : confirmLabel}
            </Button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
