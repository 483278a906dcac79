import "server-only";
import { rootCertificates } from "node:tls";
import { Agent, buildConnector, type Dispatcher } from "undici";
import type { ClientTlsSettings } from "./endpoint-auth";
import { env } from "../platform/env";
import { processWide, type Closing } from "../platform/runtime";
import { ALLOW_PRIVATE_HINT, guardedLookup, refusedLiteralTarget } from "./ssrf";

const INTERNAL_PORT = "this server's internal port, never a webhook target";

/**
 * Keep-alive connection pools for webhook traffic, one set per process. undici's Agent keeps one
 * Pool per origin, and `connections` caps the sockets per origin to the same number as our
 * per-origin limiter, so requests never queue inside undici (our limiter does the waiting).
 */

type Dispatchers = {
  guarded: Dispatcher;
  open: Dispatcher;
  /** destinations with mutual TLS: a pool each, presenting its certificate (clientTlsAgent) */
  clientTls: Map<string, { fingerprint: string; agent: Agent }>;
};

/** A destination's client certificate and key, and the CA it alone trusts (docs/endpoint-auth.md#mutual-tls). */
export type ClientTls = {
  destinationId: string;
  settings: ClientTlsSettings;
  /** "previous": the pair a rotation with grace replaced (client-tls-grace.ts), in a pool of its own */
  slot?: "previous";
};

type TlsOptions = { cert?: string; key?: string; ca?: string[] };

/** With private networks allowed, a connection to an internal port still goes through the guard. */
function connector(guard: boolean, tls: TlsOptions = {}): buildConnector.connector | Partial<buildConnector.BuildOptions> {
  const base = { timeout: 5_000, rejectUnauthorized: true, ...tls };
  if (guard) return { ...base, lookup: guardedLookup(undefined, ALLOW_PRIVATE_HINT) };
  const open = buildConnector(base);
  const internal = internalPorts();
  if (internal.size === 0) return open;
  const guarded = buildConnector({ ...base, lookup: guardedLookup(undefined, INTERNAL_PORT) });
  return (opts, cb) => (internal.has(Number(opts.port)) ? guarded(opts, cb) : open(opts, cb));
}

function agent(guard: boolean, tls?: TlsOptions): Agent {
  const perOrigin = env().WORKER_CONCURRENCY;
  return new Agent({
    connections: perOrigin,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    connect: connector(guard, tls),
  });
}

function createDispatchers(): Dispatchers {
  const guarded = env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS ? agent(false) : agent(true);
  return { guarded, open: env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS ? guarded : agent(false), clientTls: new Map() };
}

/**
 * The destination's own pool: its connections present its certificate, and trust its `ca` besides the
 * public roots; it obeys the same outbound rules as the shared pool. A changed setting gets a new pool.
 */
function clientTlsAgent(d: Dispatchers, tls: ClientTls): Agent {
  const s = tls.settings;
  const fingerprint = `${s.clientCert}\n${s.clientKey}\n${s.ca ?? ""}`;
  const key = tls.slot ? `${tls.destinationId}#${tls.slot}` : tls.destinationId;
  const held = d.clientTls.get(key);
  if (held && held.fingerprint === fingerprint) return held.agent;
  if (held) void held.agent.close().catch(() => {});
  const created = agent(!env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS, {
    cert: s.clientCert,
    key: s.clientKey,
    ...(s.ca ? { ca: [...rootCertificates, s.ca] } : {}),
  });
  d.clientTls.set(key, { fingerprint, agent: created });
  return created;
}

/** Closed at shutdown once no round is in flight any more, before pg-boss and the pool (runtime.ts). */
const CLOSING: Closing<Dispatchers> = {
  stage: "dispatchers",
  close: async (d) => {
    await Promise.all([...new Set([d.guarded, d.open, ...[...d.clientTls.values()].map((x) => x.agent)])].map((x) => x.close()));
  },
};

const dispatchers = () => processWide("webhook dispatchers", createDispatchers, CLOSING);

/** The public port: where the ingest server (or the web app, when nothing is in front) takes requests. */
const publicPort = () => env().EVENTRAIL_PUBLIC_PORT ?? env().PORT;

/**
 * This server's own origins, where the built-in capture URLs (/c/<id>) live: the public URL, and the
 * public port on loopback, whichever process asks (inside the web app PORT is its internal port).
 */
export function ownOrigins(): string[] {
  const e = env();
  const port = publicPort();
  const loopback = [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`];
  return e.EVENTRAIL_PUBLIC_URL ? [new URL(e.EVENTRAIL_PUBLIC_URL).origin, ...loopback] : loopback;
}

/**
 * The web app's internal port(s) behind the ingest server: never a webhook target, whatever the
 * settings (a request there would skip the edge). From EVENTRAIL_WEB_URL, and inside the web app
 * PORT when it is not the public port.
 */
export function internalPorts(): Set<number> {
  const e = env();
  const ports = new Set<number>();
  if (e.EVENTRAIL_WEB_URL) ports.add(Number(new URL(e.EVENTRAIL_WEB_URL).port || 80));
  if (e.EVENTRAIL_PUBLIC_PORT && e.PORT !== e.EVENTRAIL_PUBLIC_PORT) ports.add(e.PORT);
  ports.delete(publicPort());
  return ports;
}

export const isCaptureUrl = (url: URL) => url.pathname.startsWith("/c/") && ownOrigins().includes(url.origin);

/**
 * The dispatcher for a URL, or the reason it is refused (literal private IPs when private networks are
 * not allowed); a destination with mutual TLS gets its own (clientTlsAgent).
 */
export function dispatcherFor(url: URL, clientTls?: ClientTls | null): { dispatcher: Dispatcher } | { refused: string } {
  const d = dispatchers();
  if (isCaptureUrl(url)) return { dispatcher: d.open };
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (internalPorts().has(port) && refusedLiteralTarget(url)) return { refused: `${url.hostname}:${port} is ${INTERNAL_PORT}` };
  if (!env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS) {
    const refused = refusedLiteralTarget(url);
    if (refused) return { refused: `${refused}; ${ALLOW_PRIVATE_HINT}` };
  }
  return { dispatcher: clientTls ? clientTlsAgent(d, clientTls) : d.guarded };
}

/**
 * What saving `raw` as a destination URL warns about: a loopback or private address (a literal, or
 * localhost), which deliveries refuse unless private networks are allowed; null when they would go.
 * Names are not resolved here: the guard judges each connection's address when it is made.
 */
export function privateTargetWarning(raw: string): string | null {
  if (env().EVENTRAIL_ALLOW_PRIVATE_NETWORKS) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (isCaptureUrl(url)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (!refusedLiteralTarget(url) && host !== "localhost" && !host.endsWith(".localhost")) return null;
  return `${host} is on a private or loopback network: deliveries to it are refused unless the server sets EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1 (docs/webhooks.md#outbound-safety)`;
}
