"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useTransition } from "react";

/**
 * A page whose state lives in its query string (the log's filters, the overview's range): each
 * change builds on the last query written, not on the one rendered. `router.replace` commits later —
 * the page's data for the new URL comes first, seconds later on a loaded server — so a second change
 * made meanwhile (a text filter's debounce firing after a select changed) would otherwise be built
 * on the old query and put back what the first change removed.
 */
export function useUrlQuery() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  // The query last written while its navigation is in flight; null once every one has committed.
  const written = useRef<string | null>(null);
  useEffect(() => {
    if (!pending) written.current = null;
  }, [pending]);
  const rendered = params.toString();

  /** The query the next change builds on. */
  const latest = useCallback(
    (): URLSearchParams => (written.current === null ? new URLSearchParams(rendered) : new URLSearchParams(written.current)),
    [rendered],
  );
  const replace = useCallback(
    (q: URLSearchParams) => {
      const s = q.toString();
      written.current = s === rendered && written.current === null ? null : s;
      startTransition(() => router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false }));
    },
    [router, pathname, rendered],
  );
  return { params, latest, replace };
}
