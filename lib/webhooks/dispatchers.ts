import "server-only";
import { Agent, type Dispatcher } from "undici";
import { env } from "../platform/env";
import { processWide, type Closing } from "../platform/runtime";
import { guardedLookup, refusedLiteralTarget } from "./ssrf";

/**
 * Keep-alive connection pools for webhook traffic, one set per process. undici's Agent keeps one
 * Pool per origin, and `connections` caps the sockets per origin to the same number as our
 * per-origin limiter, so requests never queue inside undici (our limiter does the waiting).
 */

type Dispatchers = { guarded: Dispatcher; open: Dispatcher };

function agent(guard: boolean): Agent {
  const perOrigin = env().WORKER_CONCURRENCY;
  return new Agent({
    connections: perOrigin,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    connect: { timeout: 5_000, rejectUnauthorized: true, ...(guard ? { lookup: guardedLookup() } : {}) },
  });
}

function createDispatchers(): Dispatchers {
  const guarded = env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS ? agent(false) : agent(true);
  return { guarded, open: env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS ? guarded : agent(false) };
}

/** Closed at shutdown once no round is in flight any more, before pg-boss and the pool (runtime.ts). */
const CLOSING: Closing<Dispatchers> = {
  stage: "dispatchers",
  close: async (d) => {
    await Promise.all([...new Set([d.guarded, d.open])].map((x) => x.close()));
  },
};

const dispatchers = () => processWide("webhook dispatchers", createDispatchers, CLOSING);

/** This server's own origins, where the built-in capture URLs (/c/<id>) live. */
export function ownOrigins(): string[] {
  const e = env();
  if (e.EVENTRAIL_PUBLIC_URL) return [new URL(e.EVENTRAIL_PUBLIC_URL).origin];
  return [`http://localhost:${e.PORT}`, `http://127.0.0.1:${e.PORT}`];
}

export const isCaptureUrl = (url: URL) => url.pathname.startsWith("/c/") && ownOrigins().includes(url.origin);

/** The dispatcher for a URL, or the reason it is refused (literal private IPs when private networks are not allowed). */
export function dispatcherFor(url: URL): { dispatcher: Dispatcher } | { refused: string } {
  const d = dispatchers();
  if (isCaptureUrl(url)) return { dispatcher: d.open };
  if (!env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS) {
    const refused = refusedLiteralTarget(url);
    if (refused) return { refused };
  }
  return { dispatcher: d.guarded };
}
