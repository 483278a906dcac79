"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A modal in a native <dialog>: focus moves into it (to the element marked data-initial-focus),
 * Escape cancels, the page behind is inert, and closing gives focus back to what opened it —
 * keyboard and screen readers get that for free. `title` names it.
 */
export function ModalDialog({
  open,
  title,
  onCancel,
  wide = false,
  children,
}: {
  open: boolean;
  title: string;
  onCancel: () => void;
  /** max-w-lg instead of max-w-md: room for a code sample or a list of secrets */
  wide?: boolean;
  children: ReactNode;
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
      // React's autoFocus ran while the dialog was still closed; the marked element takes focus now.
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
      className={`m-auto w-[calc(100%-2rem)] ${wide ? "max-w-lg" : "max-w-md"} rounded-lg bg-white p-0 shadow-xl ring-1 ring-slate-200 backdrop:bg-black/50`}
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-base font-semibold text-slate-900">
            {title}
          </h2>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}

/** A confirmation: what will happen, Cancel (focused first: the safe choice) and the action. */
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
  return (
    <ModalDialog open={open} title={title} onCancel={onCancel}>
      {children ? <div className="mt-2 text-sm text-slate-600">{children}</div> : null}
      <div className="mt-5 flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onCancel} data-initial-focus>
          Cancel
        </Button>
        <Button variant={tone} onClick={onConfirm} disabled={busy || confirmDisabled}>
          {busy ? "Working…" : confirmLabel}
        </Button>
      </div>
    </ModalDialog>
  );
}
