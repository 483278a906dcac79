"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { focusWhenPresent } from "@/components/ui/focus";

/**
 * After a client-side page change, focus goes to the new page's heading (as a full page load starts
 * at the top), so a keyboard or screen-reader user starts on the page they opened, not on the link
 * they left. The first page is left alone: the skip link is the first stop there.
 */
export function RouteFocus() {
  const pathname = usePathname();
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each page change
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // A page that opens on something (the log with an attempt's drawer open) marks it data-focus-target.
    return focusWhenPresent(
      () => document.querySelector<HTMLElement>("#main [data-focus-target]") ?? document.querySelector<HTMLElement>("#main h1"),
    );
  }, [pathname]);
  return null;
}
