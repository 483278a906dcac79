import type { Page, Route } from "@playwright/test";

/**
 * Management API calls with the logged-in owner's session (cookie + CSRF header), for the setup
 * a story needs but does not itself exercise in the browser.
 */
export async function api<T = any>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const cookies = await page.context().cookies();
  const csrf = cookies.find((c) => c.name === "er_csrf")?.value ?? "";
  const res = await page.request.fetch(path, {
    method,
    // A fresh connection per call: reusing one the server is just closing (keep-alive timeout) resets it.
    headers: {
      connection: "close",
      "x-csrf-token": decodeURIComponent(csrf),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok()) throw new Error(`${method} ${path} → ${res.status()} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A source of its own for a story, with its write key. */
export const createSource = (page: Page, name: string) => api<{ id: string; writeKey: string }>(page, "POST", "/api/sources", { name });

export const createCaptureBin = (page: Page, input: { name?: string; responseStatus?: number } = {}) =>
  api<{ id: string; url: string }>(page, "POST", "/api/capture-bins", input);

/** Sends calls through the Tracking API as a real client would (HTTP Basic with the write key). */
export async function sendBatch(page: Page, writeKey: string, batch: Record<string, unknown>[]) {
  const res = await page.request.post("/v1/batch", {
    headers: {
      connection: "close",
      authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`,
      "content-type": "application/json",
    },
    data: JSON.stringify({ batch }),
  });
  if (!res.ok()) throw new Error(`/v1/batch → ${res.status()} ${await res.text()}`);
  return res.json();
}

/**
 * Holds back the data of every navigation to `pathname` (Next's RSC requests) by 1 s, as a loaded
 * server might, so a story can act while a page's new URL has not rendered yet. Returns the undo.
 */
export async function slowPageData(page: Page, pathname: string): Promise<() => Promise<void>> {
  const matches = (url: URL) => url.pathname === pathname;
  const hold = async (route: Route) => {
    if (route.request().headers().rsc === "1") await new Promise((resolve) => setTimeout(resolve, 1_000));
    await route.continue();
  };
  await page.route(matches, hold);
  return () => page.unroute(matches, hold);
}
