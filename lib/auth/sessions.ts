import "server-only";
import { prisma } from "../platform/db";
import type { Role } from "../api/access";
import { randomToken, sha256 } from "./crypto";

export const SESSION_COOKIE = "er_session";
export const CSRF_COOKIE = "er_csrf";
export const CSRF_HEADER = "x-csrf-token";
const SESSION_DAYS = 14;

export type NewSession = { token: string; csrfToken: string; expiresAt: Date };
/** `id` is the stored id (the token's hash), never the token itself. */
export type SessionInfo = { id: string; userId: string; workspaceId: string; csrfToken: string; email: string; role: Role };

export async function createSession(opts: {
  userId: string;
  workspaceId: string;
  address?: string;
  userAgent?: string | null;
}): Promise<NewSession> {
  const token = randomToken("", 32);
  const csrfToken = randomToken("", 24);
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await prisma().session.create({
    data: {
      id: sha256(token),
      userId: opts.userId,
      workspaceId: opts.workspaceId,
      csrfToken,
      expiresAt,
      address: opts.address ?? null,
      userAgent: opts.userAgent?.slice(0, 300) ?? null,
    },
  });
  return { token, csrfToken, expiresAt };
}

export async function findSession(token: string | undefined): Promise<SessionInfo | null> {
  if (!token) return null;
  const s = await prisma().session.findUnique({
    where: { id: sha256(token) },
    select: {
      id: true,
      userId: true,
      workspaceId: true,
      csrfToken: true,
      expiresAt: true,
      user: { select: { email: true, memberships: { select: { workspaceId: true, role: true } } } },
    },
  });
  if (!s || s.expiresAt.getTime() < Date.now()) return null;
  // The role is read on every request, so a changed role or a removed member takes effect at once;
  // a session whose member was removed from its workspace is no session (docs/management-api.md#roles).
  const membership = s.user.memberships.find((m) => m.workspaceId === s.workspaceId);
  if (!membership) return null;
  return {
    id: s.id,
    userId: s.userId,
    workspaceId: s.workspaceId,
    csrfToken: s.csrfToken,
    email: s.user.email,
    role: membership.role as Role,
  };
}

export async function destroySession(token: string | undefined): Promise<void> {
  if (!token) return;
  await prisma().session.deleteMany({ where: { id: sha256(token) } });
}
