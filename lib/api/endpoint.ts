import type { z } from "zod";

/**
 * One Management API endpoint, declared once in its feature's contract.ts (browser-safe: zod only)
 * and used three ways: the route handler parses and authorises with it (lib/api/api-route.ts), the
 * dashboard's hooks call it through its route (lib/api/routes.ts: method and path, typed by it, no
 * zod in the browser), and the OpenAPI document is generated from it.
 * See docs/management-api.md.
 */

/**
 * Who may call it (docs/management-api.md#roles): anyone (`public`: login, setup, health), a member
 * of the workspace with at least this role (`viewer` < `admin` < `owner`; a read-only API token acts
 * as a viewer, a full one as an admin), any logged-in member about their own account (`account`:
 * a dashboard session, never a token), or only the operator's admin token (`operator`).
 */
export type Access = "public" | "viewer" | "admin" | "owner" | "account" | "operator";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Endpoint = {
  method: HttpMethod;
  /** The path as OpenAPI writes it: `/api/destinations/{id}` for app/api/destinations/[id]/route.ts. */
  path: `/api/${string}`;
  /** One line for the API reference. */
  summary: string;
  description?: string;
  access: Access;
  /** The query string's schema (values arrive as strings; coerce where numbers are meant). */
  query?: z.ZodType;
  /** The JSON body's schema; an empty body is read as `{}`. */
  body?: z.ZodType;
  /** The largest body accepted, in bytes; larger ones are refused with 413 before being read (default 1 MB). */
  maxBodyBytes?: number;
  /** The success body; absent means 204 No Content. */
  response?: z.ZodType;
  /** The success status: 200 unless given. */
  status?: 200 | 201 | 202 | 204;
};

/** Declares an endpoint, keeping its literal types (method, path, schemas) for the route and the hooks. */
export const endpoint = <const E extends Endpoint>(e: E): E => e;

/** The parsed query, body and success body of an endpoint, as TypeScript types. */
export type QueryOf<E extends Endpoint> = E["query"] extends z.ZodType ? z.infer<E["query"]> : undefined;
export type BodyOf<E extends Endpoint> = E["body"] extends z.ZodType ? z.infer<E["body"]> : undefined;
/** What a client sends: the body schema's input side (before defaults and transforms). */
export type BodyInputOf<E extends Endpoint> = E["body"] extends z.ZodType ? z.input<E["body"]> : undefined;
export type ResponseOf<E extends Endpoint> = E["response"] extends z.ZodType ? z.infer<E["response"]> : undefined;

/** `/api/sources/{id}` with `{id: "…"}` → `/api/sources/…` (each value URL-encoded). */
export function endpointPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(v);
  });
}
