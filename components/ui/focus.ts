/**
 * Moves focus to an element as soon as it exists (a list refetched after a create, a page's heading
 * after its data loads), within `timeoutMs`; gives up if the person moves focus themselves first.
 * Returns a cancel function (for an effect's cleanup). docs/dashboard.md#any-screen-any-input.
 */
export function focusWhenPresent(find: () => HTMLElement | null | undefined, timeoutMs = 5_000): () => void {
  const before = document.activeElement;
  const attempt = () => {
    // Someone else (the person, or a component that knows better) moved focus since: leave it.
    const now = document.activeElement;
    if (now !== before && now !== document.body && now !== null) return true;
    const el = find();
    if (!el) return false;
    if (el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.tabIndex = -1;
    el.focus();
    return true;
  };
  if (attempt()) return () => {};
  const observer = new MutationObserver(() => {
    if (attempt()) stop();
  });
  const timer = setTimeout(() => stop(), timeoutMs);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}
