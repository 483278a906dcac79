import { NextResponse } from "next/server";
import type { z } from "zod";
import { AppError, STATUS_BY_CODE, fieldErrorsFromIssues } from "../errors";
import { log } from "../log";
import { authenticate, type Principal } from "./principal";
import { requestIdOf } from "./request-id";

type RouteContext = { params: Promise<Record<string, string>> };

export type ApiContext<P = Record<string, string>> = {
  req: Request;
  principal: Principal;
  params: P;
  requestId: string;
};

export function errorResponse(err: unknown, requestId: string): NextResponse {
  if (err instanceof AppError) {
    const body = { error: { code: err.code, message: err.message, ...(err.fields ? { fields: err.fields } : {}) } };
    return NextResponse.json(body, { status: STATUS_BY_CODE[err.code], headers: { "x-request-id": requestId } });
  }
  // Unknown errors are logged in full and never echoed to the client.
  log().error({ requestId, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) }, "unhandled API error");
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
 * One access log line per API request, with its request id. The path only: query strings carry
 * filters such as userId, and headers (Authorization, Cookie) never reach the line at all.
 */
function logRequest(req: Request, requestId: string, res: Response, started: number, principal?: Principal): void {
  if (!res.headers.has("x-request-id")) res.headers.set("x-request-id", requestId);
  log().info(
    { requestId, method: req.method, path: new URL(req.url).pathname, status: res.status, ms: Math.round(performance.now() - started), ...(principal ? { auth: principal.kind, workspaceId: principal.workspaceId } : {}) },
    "api request",
  );
}

/** A Management API route: authenticates, runs the handler, maps errors to the JSON error format. */
export function apiRoute<P = Record<string, string>>(
  handler: (ctx: ApiContext<P>) => Promise<unknown>,
  opts: { status?: number } = {},
) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    let principal: Principal | undefined;
    let res: Response;
    try {
      principal = await authenticate(req);
      const params = ((await ctx?.params) ?? {}) as P;
      res = toResponse(await handler({ req, principal, params, requestId }), requestId, opts.status);
    } catch (err) {
      res = errorResponse(err, requestId);
    }
    logRequest(req, requestId, res, started, principal);
    return res;
  };
}

/** A route without authentication (health, login, setup). */
export function publicRoute<P = Record<string, string>>(handler: (ctx: { req: Request; params: P; requestId: string }) => Promise<unknown>) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    let res: Response;
    try {
      const params = ((await ctx?.params) ?? {}) as P;
      res = toResponse(await handler({ req, params, requestId }), requestId);
    } catch (err) {
      res = errorResponse(err, requestId);
    }
    logRequest(req, requestId, res, started);
    return res;
  };
}

/** Parses a JSON body with a zod schema: 400 for bad JSON, 422 with field errors for bad input. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    const text = await req.text();
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
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("validation_failed", "Some fields are invalid", fieldErrorsFromIssues(parsed.error.issues));
  }
  return parsed.data;
}
