import "server-only";
import { dehydrate, HydrationBoundary, QueryClient, type QueryKey } from "@tanstack/react-query";
import { headers } from "next/headers";
import { validate } from "@/lib/api/api-route";
import { accessRefusal, type Role } from "@/lib/api/access";
import type { Endpoint, QueryOf } from "@/lib/api/endpoint";
import { requirePageSession } from "@/lib/auth/current";
import { AppError } from "@/lib/platform/errors";
import { logger } from "@/lib/platform/logger";

/**
 * A page's first data, fetched on the server while it renders and handed to TanStack Query, so the
 * page arrives drawn instead of starting its fetches once its scripts have run (docs/dashboard.md#first-render,
 * decision 0175). Each query stands in for one call the browser would make: the same endpoint's
 * role rule, its query string parsed by the same schema, the same lib/ function scoped to the
 * session's workspace, and the answer as the API sends it (JSON), under the key the page's hook reads.
 */

/** What a route handler knows about its caller, for a page: the session's workspace and role, and the page's request. */
export type PageContext<E extends Endpoint> = {
  workspaceId: string;
  role: Role;
  /** The query string as the endpoint's schema parsed it. */
  query: QueryOf<E>;
  /** The page's request headers (e.g. the public base a capture URL is built on). */
  req: Request;
};

export type PageQuery = {
  endpoint: Endpoint;
  queryKey: QueryKey;
  /** The query string the browser's fetcher sends; parsed by the endpoint's schema as the route parses it. */
  query?: Record<string, unknown>;
  /** The first page of an infinite query (its first page parameter is null). */
  infinite?: boolean;
  load: (ctx: PageContext<Endpoint>) => Promise<unknown>;
};

type Data<F> = F extends (...args: never[]) => Promise<infer T> ? T : never;

/**
 * One query of a page. `fetcher` is the browser's fetcher for the same key (its hooks module): only
 * its type is used, so what `load` returns must be what the fetcher resolves to.
 */
export function pageQuery<E extends Endpoint, F extends (...args: never[]) => Promise<unknown>>(
  _fetcher: F,
  q: {
    endpoint: E;
    queryKey: QueryKey;
    query?: Record<string, unknown>;
    infinite?: boolean;
    load: (ctx: PageContext<E>) => Promise<NoInfer<Data<F>>>;
  },
): PageQuery {
  return q as unknown as PageQuery;
}

/** A query string as `call` sends it (components/data/api-client.ts): empty values left out, the rest as text. */
function asSentQuery(query: Record<string, unknown> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") out[k] = String(v);
  return out;
}

async function pageRequest(): Promise<Request> {
  const h = await headers();
  return new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: [...h] });
}

/**
 * Runs a page's queries on the server, then renders `children` with their answers in TanStack
 * Query's cache. A query the browser's call would be refused (the role rule), or that fails (a
 * deleted destination, a bad filter in the URL, the database away), is left out: the page fetches
 * it in the browser as before and shows that call's own answer.
 */
export async function Prefetched({ queries, children }: { queries: PageQuery[]; children: React.ReactNode }) {
  const session = await requirePageSession();
  const req = await pageRequest();
  const client = new QueryClient();
  const caller = { role: session.role, via: "session" } as const;
  await Promise.all(
    queries.map((q) => {
      if (accessRefusal(caller, q.endpoint)) return null;
      const queryFn = async () => {
        try {
          const query = (q.endpoint.query ? validate(q.endpoint.query, asSentQuery(q.query)) : undefined) as QueryOf<Endpoint>;
          // As the API sends it: dates as ISO strings, undefined fields gone.
          return JSON.parse(JSON.stringify(await q.load({ workspaceId: session.workspaceId, role: session.role, query, req })));
        } catch (err) {
          if (!(err instanceof AppError)) logger().warn({ err: (err as Error).message, queryKey: q.queryKey }, "page prefetch failed");
          throw err;
        }
      };
      return q.infinite
        ? client.prefetchInfiniteQuery({ queryKey: q.queryKey, queryFn, initialPageParam: null })
        : client.prefetchQuery({ queryKey: q.queryKey, queryFn });
    }),
  );
  return <HydrationBoundary state={dehydrate(client)}>{children}</HydrationBoundary>;
}
