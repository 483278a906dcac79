import type { ReactNode } from "react";

/**
 * A wide table on a narrow screen scrolls sideways inside this box instead of widening the page.
 * The box is a named, focusable region so a keyboard can scroll it too (axe: scrollable-region-focusable).
 */
export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a scroll container around a table, named for assistive technology; <section> would add nothing
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <div role="region" aria-label={label} tabIndex={0} className="relative overflow-x-auto focus-visible:outline-offset-[-2px]">
      {children}
    </div>
  );
}
