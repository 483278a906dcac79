import type { Endpoint } from "./endpoint";

/**
 * An endpoint as the browser calls it: its method and path, and its contract's types without its
 * zod schemas, so the dashboard's hooks do not ship zod to every page (decision 0175). Each
 * feature's routes.ts lists its contract's endpoints this way; TypeScript checks every method and
 * path against the contract's, so the two cannot drift.
 */
export type Route<E extends Endpoint = Endpoint> = {
  readonly method: E["method"];
  readonly path: E["path"];
  /** Types only: the endpoint's query, body and response (never set at run time). */
  readonly endpoint?: E;
};

/** `routesOf<typeof sourceEndpoints>({ list: ["GET", "/api/sources"], … })`: every endpoint of the contract, by name. */
export function routesOf<T extends Record<string, Endpoint>>(
  table: {
    [K in keyof T]: readonly [method: T[K]["method"], path: T[K]["path"]];
  },
): { [K in keyof T]: Route<T[K]> } {
  const out: Record<string, Route> = {};
  for (const [name, [method, path]] of Object.entries(table) as [string, readonly [Endpoint["method"], Endpoint["path"]]][]) {
    out[name] = { method, path };
  }
  return out as { [K in keyof T]: Route<T[K]> };
}
