"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/**
 * After a refused submit, focus goes to the form's first invalid control (aria-invalid="true"),
 * once React has rendered the errors: a keyboard or screen-reader user lands on what to fix,
 * and hears its error (linked with aria-describedby) instead of staying on the submit button.
 */
export function useFocusFirstInvalid<T extends HTMLElement = HTMLFormElement>(selector = '[aria-invalid="true"]') {
  const ref = useRef<T>(null);
  const [request, setRequest] = useState(0);
  useEffect(() => {
    if (request === 0) return;
    ref.current?.querySelector<HTMLElement>(selector)?.focus();
  }, [request, selector]);
  const focusFirstInvalid = useCallback(() => setRequest((n) => n + 1), []);
  return [ref, focusFirstInvalid] as const;
}
