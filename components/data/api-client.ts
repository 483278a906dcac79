import type { z } from "zod";
import { endpointPath, type Endpoint, type ResponseOf } from "@/lib/api/endpoint";
import type { Route } from "@/lib/api/routes";

/** Browser-side fetcher for the Management API: JSON in and out, CSRF header, typed errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
  }
}

function csrfToken(): string | undefined {
  if (typeof document === "undefined") return undefined;
  const m = /(?:^|;\s*)er_csrf=([^;]+)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** The one fetch of the dashboard; hooks reach it through `call`, so every path, method and type comes from a contract's route. */
async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const csrf = csrfToken();
  if (method !== "GET" && csrf) headers["x-csrf-token"] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
    credentials: "same-origin",
  });
  if (res.status === 401 && typeof window !== "undefined" && !path.startsWith("/api/auth/")) {
    window.location.href = `/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const e = data?.error ?? {};
    throw new ApiError(res.status, e.code ?? "error", e.message ?? `Request failed (${res.status})`, e.fields);
  }
  return data as T;
}

/** `"/api/sources/{id}/events"` → `"id"`: the names a path needs filled in. */
type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

type ParamsOption<E extends Endpoint> = [PathParamNames<E["path"]>] extends [never]
  ? { params?: undefined }
  : { params: Record<PathParamNames<E["path"]>, string> };
/** What a client sends: the schemas' input side (before coercion, defaults and transforms). */
type BodyOption<E extends Endpoint> = E["body"] extends z.ZodType ? { body: z.input<E["body"]> } : { body?: undefined };
type QueryOption<E extends Endpoint> = E["query"] extends z.ZodType ? { query?: Partial<z.input<E["query"]>> } : { query?: undefined };

export type CallOptions<E extends Endpoint> = ParamsOption<E> & BodyOption<E> & QueryOption<E> & { signal?: AbortSignal };

/** Options may be left out only when the endpoint needs neither path parameters nor a body. */
type CallArgs<E extends Endpoint> = [PathParamNames<E["path"]>] extends [never]
  ? E["body"] extends z.ZodType
    ? [options: CallOptions<E>]
    : [options?: CallOptions<E>]
  : [options: CallOptions<E>];

/**
 * Calls one endpoint of a feature's contract, through its route (lib/<feature>/routes.ts) and typed
 * by it: `call(sourceRoutes.get, { params: { id }, signal })` resolves to the endpoint's response type.
 */
export async function call<E extends Endpoint>(route: Route<E>, ...[options]: CallArgs<E>): Promise<ResponseOf<E>> {
  const o: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; signal?: AbortSignal } = options ?? {};
  let path = endpointPath(route.path, o.params);
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined && v !== null && v !== "") query.set(k, String(v));
  const qs = query.toString();
  if (qs) path += `?${qs}`;
  return api<ResponseOf<E>>(path, { method: route.method, body: o.body, signal: o.signal });
}
