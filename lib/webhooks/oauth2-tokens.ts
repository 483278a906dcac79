import "server-only";
import * as oauth from "oauth4webapi";
import { fetch as undiciFetch } from "undici";
import { dispatcherFor } from "./dispatchers";
import { MASKED_BEARER, type OAuth2Settings, previousClientSecret } from "./endpoint-auth";
import { errorKindOf } from "./outcome";
import type { OutgoingRequest } from "./request";

/**
 * OAuth 2.0 client-credentials tokens for endpoint authentication (docs/endpoint-auth.md#oauth2),
 * one cache per worker process: a destination's token serves every request until 60 s before it
 * expires, one token request goes out however many requests wait for it, and a token the endpoint
 * answered 401 to is dropped. The token request goes through the deliveries' own dispatchers, so the
 * outbound rules (docs/webhooks.md#outbound-safety), TLS verification and a 5 s deadline hold for it.
 */

/** docs/endpoint-auth.md#token-requests: the whole token request must end within 5 s. */
export const TOKEN_TIMEOUT_MS = 5_000;
/** A token is not used in its last 60 s, so it does not expire on the way. */
const EARLY_S = 60;
/** The lifetime of a token whose answer has no expires_in. */
const DEFAULT_LIFETIME_S = 3600;

/** A token, or why there is none: `auth` (retried) or `ssrf` (the token URL is refused; failed at once). */
export type TokenResult = { token: string } | { errorKind: "auth" | "ssrf"; message: string };

type Cached = { token: string; fingerprint: string; renewAt: number };
const cache = new Map<string, Cached>();
const inFlight = new Map<string, { fingerprint: string; promise: Promise<TokenResult> }>();

/** Settings that change the token: a destination edited since gets a new one. */
const fingerprintOf = (a: OAuth2Settings) => JSON.stringify([a.tokenUrl, a.clientId, a.clientSecret, a.scope, a.audience, a.method]);

/** The destination's token: the cached one while it lasts, else one request shared by every caller meanwhile. */
export function bearerToken(destinationId: string, auth: OAuth2Settings, now = Date.now()): Promise<TokenResult> | TokenResult {
  const fingerprint = fingerprintOf(auth);
  const cached = cache.get(destinationId);
  if (cached && cached.fingerprint === fingerprint && cached.renewAt > now) return { token: cached.token };
  const pending = inFlight.get(destinationId);
  if (pending && pending.fingerprint === fingerprint) return pending.promise;
  const promise = requestToken(auth).then((result) => {
    if (inFlight.get(destinationId)?.promise === promise) inFlight.delete(destinationId);
    if ("token" in result) {
      // A bound, not a cache policy: one entry per destination with auth.
      if (cache.size >= 10_000) cache.clear();
      cache.set(destinationId, { token: result.token, fingerprint, renewAt: Date.now() + (result.lifetimeS - EARLY_S) * 1000 });
      return { token: result.token };
    }
    return result;
  });
  inFlight.set(destinationId, { fingerprint, promise });
  return promise;
}

/**
 * Drops the destination's token after the endpoint answered 401 to it. Only that token: when several
 * requests were refused with it, the first caller's fresh token is not dropped by the others.
 */
export function dropToken(destinationId: string, token: string): void {
  if (cache.get(destinationId)?.token === token) cache.delete(destinationId);
}

/**
 * A token with the current client secret; when the token endpoint refuses it as a client
 * (invalid_client, or HTTP 401) during a rotation's grace, with the previous one
 * (docs/endpoint-auth.md#rotation): the authorization server may not know the new secret yet.
 */
async function requestToken(auth: OAuth2Settings): Promise<{ token: string; lifetimeS: number } | Exclude<TokenResult, { token: string }>> {
  const first = await requestTokenWith(auth, auth.clientSecret);
  const previous = previousClientSecret(auth);
  if ("token" in first || !previous || !first.clientRefused) return first;
  const second = await requestTokenWith(auth, previous.secret);
  return "token" in second ? second : { errorKind: first.errorKind, message: `${first.message} (the previous client secret too)` };
}

/** One token request (RFC 6749 §4.4) through oauth4webapi. Never throws; its errors never carry a token. */
async function requestTokenWith(
  auth: OAuth2Settings,
  clientSecret: string,
): Promise<{ token: string; lifetimeS: number } | (Exclude<TokenResult, { token: string }> & { clientRefused?: boolean })> {
  let url: URL;
  try {
    url = new URL(auth.tokenUrl);
  } catch {
    return { errorKind: "auth", message: "token request: the token URL does not parse" };
  }
  const target = dispatcherFor(url);
  if ("refused" in target) return { errorKind: "ssrf", message: `token request refused: ${target.refused}; no request was sent` };
  const as: oauth.AuthorizationServer = { issuer: url.origin, token_endpoint: url.href };
  const client: oauth.Client = { client_id: auth.clientId };
  const clientAuth = auth.method === "client_secret_post" ? oauth.ClientSecretPost(clientSecret) : oauth.ClientSecretBasic(clientSecret);
  const params = new URLSearchParams();
  if (auth.scope) params.set("scope", auth.scope);
  if (auth.audience) {
    // `audience` as Auth0 and others read it; `resource` (RFC 8707) as standard servers do, when it is a URI.
    params.set("audience", auth.audience);
    if (URL.canParse(auth.audience)) params.set("resource", auth.audience);
  }
  try {
    const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, params, {
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      // http:// token URLs are allowed as http:// webhook URLs are (docs/endpoint-auth.md#oauth2).
      [oauth.allowInsecureRequests]: url.protocol === "http:",
      [oauth.customFetch]: (input, init) => undiciFetch(input, { ...init, dispatcher: target.dispatcher }) as unknown as Promise<Response>,
    });
    const answer = await oauth.processClientCredentialsResponse(as, client, response);
    const lifetimeS = typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in : DEFAULT_LIFETIME_S;
    return { token: answer.access_token, lifetimeS };
  } catch (err) {
    return {
      errorKind: errorKindOf(err) === "ssrf" ? "ssrf" : "auth",
      message: `token request failed: ${describeTokenError(err)}; no request was sent`,
      clientRefused: clientRefused(err),
    };
  }
}

/** The token endpoint refused the client's credentials: invalid_client (RFC 6749 §5.2), or a 401. */
function clientRefused(err: unknown): boolean {
  if (err instanceof oauth.ResponseBodyError) return err.error === "invalid_client" || err.status === 401;
  if (err instanceof oauth.WWWAuthenticateChallengeError) return err.status === 401;
  return false;
}

/** What went wrong, from the token endpoint's error answer or the network error: never a token. */
function describeTokenError(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) {
    return `HTTP ${err.status} ${err.error}${err.error_description ? `: ${err.error_description.slice(0, 200)}` : ""}`;
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    const p = err.cause[0]?.parameters;
    const why = p?.error ? ` ${p.error}${p.error_description ? `: ${p.error_description.slice(0, 200)}` : ""}` : "";
    return `HTTP ${err.status}${why}`;
  }
  const e = err as { name?: string; message?: string; code?: string; cause?: { message?: string; code?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer within ${TOKEN_TIMEOUT_MS / 1000} s`;
  if (err instanceof oauth.OperationProcessingError) {
    // Its message describes the answer's shape (e.g. "unexpected HTTP status code"), never a token.
    const status = (e as { cause?: { status?: number } }).cause?.status;
    return `${e.message}${typeof status === "number" ? ` (HTTP ${status})` : ""}`;
  }
  const code = e?.code ?? e?.cause?.code;
  const message = e?.cause?.message ?? e?.message ?? "unknown error";
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * The request with the bearer token as its Authorization header, and `Bearer ****` where it is
 * logged (docs/endpoint-auth.md#request-log). A custom Authorization header gives way to it.
 */
export function withBearer(req: OutgoingRequest, token: string): OutgoingRequest {
  const headers: Record<string, string> = {};
  const loggedHeaders: Record<string, string> = {};
  for (const name in req.headers) if (name.toLowerCase() !== "authorization") headers[name] = req.headers[name];
  for (const name in req.loggedHeaders) if (name.toLowerCase() !== "authorization") loggedHeaders[name] = req.loggedHeaders[name];
  headers.authorization = `Bearer ${token}`;
  loggedHeaders.authorization = MASKED_BEARER;
  return { headers, body: req.body, loggedHeaders };
}
