/**
 * Where to go after logging in (docs/dashboard.md#login): the `next` parameter resolved against the
 * app's own origin, exactly as the browser would resolve it, and kept only when it stays there.
 * Browser-safe and pure. Spellings that browsers read as another host — `//evil`, `/\evil`,
 * `/%5Cevil` once decoded, a tab or newline inside `//`, `https://evil`, `javascript:…` — all land
 * on `fallback`.
 */
export function safeNextPath(next: string | null | undefined, origin: string, fallback = "/sources"): string {
  if (!next) return fallback;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(origin).origin) return fallback;
  const path = url.pathname + url.search + url.hash;
  // `/.//evil` resolves on our origin to the path `//evil`, which a router would read as a host.
  if (!path.startsWith("/") || path.startsWith("//")) return fallback;
  return path;
}
