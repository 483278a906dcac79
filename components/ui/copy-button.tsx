"use client";

import { useState } from "react";
import { Button } from "./button";

export async function copyText(value: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(value);
  } catch {
    // Clipboard API unavailable (plain http on another host): fall back to a selection copy.
    const ta = document.createElement("textarea");
    ta.value = value;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
}

/** Copies `value` (or what `value()` resolves to) to the clipboard and confirms for a moment. */
export function CopyButton({ value, label = "Copy" }: { value: string | (() => Promise<string>); label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="secondary"
      aria-live="polite"
      onClick={async () => {
        try {
          await copyText(typeof value === "string" ? value : await value());
        } catch {
          // `value()` failed (a refused reveal, say): its caller shows why; nothing was copied.
          return;
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? "Copied ✓" : label}
    </Button>
  );
}
