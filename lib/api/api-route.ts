import "server-only";
import { NextResponse } from "next/server";
import type { z } from "zod";
import { AppError, RETRY_AFTER_SECONDS, STATUS_BY_CODE, dataExceptionMessage, isDatabaseUnavailable } from "../platform/errors";
import { fieldErrorsFromIssues } from "./field-errors";
import { findUnstorableInput } from "./input-guards";
import { logger } from "../platform/logger";
import { requestIdOf } from "../platform/request-id";
import type { BodyOf, Endpoint, QueryOf } from "./endpoint";
import { actorOf, assertAccess, authenticate, hasWorkspace, type Principal } from "./principal";
import { clientAddress } from "./client-address";
import type { Actor } from "../audit/record";
import { tooLargeMessage } from "./too-large";

type RouteContext = { params: Promise<Record<string, string>> };

/** What a route handler gets: the request, its principal, and its path params, query and body already parsed. */
export type ApiContext<E extends Endpoint> = {
  req: Request;
  principal: Principal;
  /** The principal and its address, as the audit log records who made a change. */
  actor: Actor;
  params: Record<string, string>;
  query: QueryOf<E>;
  body: BodyOf<E>;
  requestId: string;
};

export type PublicContext<E extends Endpoint> = Omit<ApiContext<E>, "principal" | "actor">;

/** A handler answers with the endpoint's success body (or nothing for 204), or a Response of its own. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler of an endpoint without a response body returns nothing (204)
type Answer<E extends Endpoint> = Promise<(E["response"] extends z.ZodType ? z.input<E["response"]> : void) | Response>;

/**
 * The client hung up before its request body was read whole: nothing was done, nobody reads the
 * answer, and it is logged as what it is — not as the database being unavailable, which the
 * connection-reset code the body stream fails with would otherwise suggest.
 */
export class ClientAbort extends Error {
  constructor(cause: unknown) {
    super("The client closed the connection before its request body was read", { cause });
  }
}

export function errorResponse(err: unknown, requestId: string, req?: Request): NextResponse {
  if (err instanceof ClientAbort || req?.signal.aborted) {
    const path = req ? new URL(req.url).pathname : undefined;
    logger().info({ requestId, method: req?.method, path }, "API call aborted by the client");
    return NextResponse.json(
      { error: { code: "bad_request", message: "The request was closed before its body was read" } },
      { status: STATUS_BY_CODE.bad_request, headers: { "x-request-id": requestId } },
    );
  }
  // The database cannot take the call right now (docs/management-api.md#errors): 503, retry later, not a 500.
  const unavailable = !(err instanceof AppError) && isDatabaseUnavailable(err);
  if (unavailable) logger().warn({ requestId, err: (err as Error).message }, "API call refused: database unavailable");
  // A value Postgres refused (class 22 data exceptions, 54000 too large to index) is the caller's
  // input, not our bug: 400 with what was wrong, never a 500. Inputs are validated before they get
  // here (lib/api/input-guards.ts, the contracts); this is the net under them.
  const refused = unavailable || err instanceof AppError ? null : dataExceptionMessage(err);
  if (refused) logger().warn({ requestId, err: (err as Error).message }, "API call refused: the database rejected a value");
  const known = unavailable
    ? new AppError("unavailable", "The database is unavailable; retry later")
    : refused
      ? new AppError("bad_request", refused)
      : err;
  if (known instanceof AppError) {
    const body = { error: { code: known.code, message: known.message, ...(known.fields ? { fields: known.fields } : {}) } };
    const retryAfter = known.code === "unavailable" ? RETRY_AFTER_SECONDS : known.retryAfterSeconds;
    const retry: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
    return NextResponse.json(body, { status: STATUS_BY_CODE[known.code], headers: { "x-request-id": requestId, ...retry } });
  }
  // Unknown errors are logged in full and never echoed to the client.
  logger().error(
    { requestId, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
    "unhandled API error",
  );
  return NextResponse.json(
    { error: { code: "internal", message: `Internal error (request ${requestId})` } },
    { status: 500, headers: { "x-request-id": requestId } },
  );
}

function toResponse(result: unknown, requestId: string, status = 200): Response {
  if (result instanceof Response) return result;
  if (result === undefined) return new NextResponse(null, { status: 204, headers: { "x-request-id": requestId } });
  return NextResponse.json(result, { status, headers: { "x-request-id": requestId } });
}

/**
 * One access log line per API request, with its request id, at debug: the console `npm start`
 * leaves stays quiet by default (docs/operations.md#logs). The path only: query strings carry
 * filters such as userId, and headers (Authorization, Cookie) never reach the line at all.
 */
function logRequest(req: Request, requestId: string, res: Response, started: number, principal?: Principal): void {
  if (!res.headers.has("x-request-id")) res.headers.set("x-request-id", requestId);
  logger().debug(
    {
      requestId,
      method: req.method,
      path: new URL(req.url).pathname,
      status: res.status,
      ms: Math.round(performance.now() - started),
      ...(principal ? { auth: principal.kind, workspaceId: principal.workspaceId } : {}),
    },
    "api request",
  );
}

async function parseInputs<E extends Endpoint>(req: Request, ep: E): Promise<{ query: QueryOf<E>; body: BodyOf<E> }> {
  const query = (ep.query ? parseQuery(req, ep.query) : undefined) as QueryOf<E>;
  const body = (ep.body ? await parseBody(req, ep.body, ep.maxBodyBytes) : undefined) as BodyOf<E>;
  return { query, body };
}

/**
 * A Management API route for an endpoint of a feature's contract: authenticates, parses the query
 * and body with the endpoint's schemas, runs the handler, and maps errors to the JSON error format.
 */
export function apiRoute<E extends Endpoint>(ep: E, handler: (ctx: ApiContext<E>) => Answer<E>) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    let principal: Principal | undefined;
    let res: Response;
    try {
      principal = await authenticate(req);
      // The role rule, from the endpoint's declaration, for every route (docs/management-api.md#roles).
      assertAccess(principal, ep);
      // The operator's token before any workspace exists: reads are empty, writes have nowhere to go.
      if (!hasWorkspace(principal) && ep.method !== "GET" && ep.access !== "operator") {
        throw new AppError("conflict", "No workspace exists yet: create a workspace first (POST /api/workspaces, or the first-run setup)");
      }
      const params = (await ctx?.params) ?? {};
      const { query, body } = await parseInputs(req, ep);
      const actor = actorOf(principal, clientAddress(req));
      res = toResponse(await handler({ req, principal, actor, params, query, body, requestId }), requestId, ep.status);
    } catch (err) {
      res = errorResponse(err, requestId, req);
    }
    logRequest(req, requestId, res, started, principal);
    return res;
  };
}

/** A route without authentication (health, login, setup, logout): its endpoint's access is "public". */
export function publicRoute<E extends Endpoint & { access: "public" }>(ep: E, handler: (ctx: PublicContext<E>) => Answer<E>) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    let res: Response;
    try {
      const params = (await ctx?.params) ?? {};
      const { query, body } = await parseInputs(req, ep);
      res = toResponse(await handler({ req, params, query, body, requestId }), requestId, ep.status);
    } catch (err) {
      res = errorResponse(err, requestId, req);
    }
    logRequest(req, requestId, res, started);
    return res;
  };
}

/** The Management API's body limit unless an endpoint sets its own (docs/management-api.md#limits). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = (maxBytes: number) => new AppError("payload_too_large", tooLargeMessage(maxBytes));

/**
 * Reads a request body as text without ever holding more than `maxBytes` of it: a declared
 * Content-Length over the limit is refused before reading, and a body sent without one (chunked)
 * is counted as it streams and cancelled as soon as it passes the limit (docs/management-api.md#limits).
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (err) {
      throw new ClientAbort(err);
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** Parses a JSON body with a zod schema: 413 over the size limit, 400 for bad JSON, 422 with field errors for bad input. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<z.infer<S>> {
  const text = await readBodyText(req, maxBytes);
  let raw: unknown;
  try {
    raw = text === "" ? {} : JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "Request body is not valid JSON");
  }
  return validate(schema, raw);
}

export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(req.url).searchParams.entries());
  return validate(schema, params);
}

export function validate<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const unstorable = findUnstorableInput(raw);
  if (unstorable) throw new AppError("validation_failed", "Some fields are invalid", { [unstorable.path]: [unstorable.message] });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("validation_failed", "Some fields are invalid", fieldErrorsFromIssues(parsed.error.issues));
  }
  return parsed.data;
}
