import "server-only";
import { prisma } from "../platform/db";
import { env } from "../platform/env";
import { AppError, isUuid } from "../platform/errors";
import { safeEqual } from "../auth/crypto";
import { CSRF_HEADER, SESSION_COOKIE, findSession } from "../auth/sessions";
import { findApiToken } from "../auth/tokens";
import type { TokenScope } from "../auth/contract";
import type { Actor } from "../audit/record";
import { accessRefusal, type Caller, type Role } from "./access";
import type { Endpoint } from "./endpoint";

/**
 * Who is calling, in which workspace every query of the request is scoped, and with which role
 * (docs/management-api.md#roles): a member's own; viewer for a read-only token, admin for a full
 * one; owner for the operator's admin token.
 */
export type Principal =
  | { kind: "session"; workspaceId: string; role: Role; userId: string; email: string; sessionId: string }
  | { kind: "token"; workspaceId: string; role: Role; tokenId: string; tokenName: string; scope: TokenScope }
  | { kind: "admin"; workspaceId: string; role: "owner" };

/** The caller as the role rule sees it (lib/api/access.ts). */
export function callerOf(p: Principal): Caller {
  if (p.kind === "admin") return { role: "owner", via: "operator" };
  if (p.kind === "token") return { role: p.role, via: p.scope === "read" ? "read-token" : "full-token" };
  return { role: p.role, via: "session" };
}

/** 403 unless the principal's role may call the endpoint: the one place the role rule is enforced. */
export function assertAccess(p: Principal, ep: Pick<Endpoint, "access">): void {
  const refusal = accessRefusal(callerOf(p), ep);
  if (refusal) throw new AppError("forbidden", refusal);
}

/** Who did it, for the audit log, and from which address. */
export function actorOf(p: Principal, address: string | null): Actor {
  if (p.kind === "session") return { type: "user", id: p.userId, label: p.email, address };
  if (p.kind === "token") return { type: "token", id: p.tokenId, label: p.tokenName, address };
  return { type: "operator", id: null, label: "operator token", address };
}

const NO_WORKSPACE = "00000000-0000-0000-0000-000000000000";

/** False for the operator's token on a fresh install, before the first workspace exists. */
export const hasWorkspace = (p: Principal): boolean => p.workspaceId !== NO_WORKSPACE;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) {
      // A value that is not valid percent-encoding (`%E0%A4%A`) is no cookie of ours: 401, not a 500.
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

async function adminWorkspace(req: Request): Promise<string> {
  const requested = req.headers.get("x-eventrail-workspace");
  if (requested) {
    // A malformed id names no workspace, so it is not looked up (Postgres would refuse it as a uuid);
    // a failed lookup is thrown, not read as "not found": a database outage answers 503, not 404.
    const ws = isUuid(requested) ? await prisma().workspace.findUnique({ where: { id: requested }, select: { id: true } }) : null;
    if (!ws) throw new AppError("not_found", "Workspace not found");
    return ws.id;
  }
  const ws = await prisma().workspace.findFirst({ orderBy: { createdAt: "asc" }, select: { id: true } });
  // Before the first workspace exists the operator can still create one; everything else is empty.
  return ws?.id ?? NO_WORKSPACE;
}

/**
 * Authenticates a Management API call: Bearer API token, the operator's admin token, or the
 * dashboard session cookie. Cookie-authenticated state changes must carry the CSRF token
 * (double-submit: the er_csrf cookie echoed in X-CSRF-Token).
 */
export async function authenticate(req: Request): Promise<Principal> {
  const authz = req.headers.get("authorization");
  if (authz) {
    const m = /^Bearer\s+(\S+)$/i.exec(authz);
    if (!m) throw new AppError("unauthorized", "Use Authorization: Bearer <token>");
    const admin = env().EVENTRAIL_ADMIN_TOKEN;
    if (admin && safeEqual(m[1], admin)) return { kind: "admin", workspaceId: await adminWorkspace(req), role: "owner" };
    const token = await findApiToken(m[1]);
    if (!token) throw new AppError("unauthorized", "Invalid or revoked API token");
    return {
      kind: "token",
      workspaceId: token.workspaceId,
      role: token.scope === "read" ? "viewer" : "admin",
      tokenId: token.id,
      tokenName: token.name,
      scope: token.scope,
    };
  }
  const session = await findSession(readCookie(req, SESSION_COOKIE));
  if (!session) throw new AppError("unauthorized", "Log in or pass an API token");
  if (MUTATING.has(req.method)) {
    const sent = req.headers.get(CSRF_HEADER);
    if (!sent || !safeEqual(sent, session.csrfToken)) throw new AppError("forbidden", "Missing or invalid CSRF token");
  }
  return {
    kind: "session",
    workspaceId: session.workspaceId,
    role: session.role,
    userId: session.userId,
    email: session.email,
    sessionId: session.id,
  };
}

/** For unauthenticated form posts (login, setup): refuse cross-site origins. */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (!origin) return;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new AppError("forbidden", "Cross-site request refused");
  }
  if (originHost !== host) throw new AppError("forbidden", "Cross-site request refused");
}
