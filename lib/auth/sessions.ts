import "server-only";
import { prisma } from "../platform/db";
import { randomToken, sha256 } from "./crypto";

export const SESSION_COOKIE = "er_session";
export const CSRF_COOKIE = "er_csrf";
export const CSRF_HEADER = "x-csrf-token";
const SESSION_DAYS = 14;

export type NewSession = { token: string; csrfToken: string; expiresAt: Date };
export type SessionInfo = { userId: string; workspaceId: string; csrfToken: string; email: string };

export async function createSession(opts: { userId: string; workspaceId: string }): Promise<NewSession> {
  const token = randomToken("", 32);
  const csrfToken = randomToken("", 24);
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await prisma().session.create({
    data: { id: sha256(token), userId: opts.userId, workspaceId: opts.workspaceId, csrfToken, expiresAt },
  });
  return { token, csrfToken, expiresAt };
}

export async function findSession(token: string | undefined): Promise<SessionInfo | null> {
  if (!token) return null;
  const s = await prisma().session.findUnique({
    where: { id: sha256(token) },
    select: { userId: true, workspaceId: true, csrfToken: true, expiresAt: true, user: { select: { email: true } } },
  });
  if (!s || s.expiresAt.getTime() < Date.now()) return null;
  return { userId: s.userId, workspaceId: s.workspaceId, csrfToken: s.csrfToken, email: s.user.email };
}

export async function destroySession(token: string | undefined): Promise<void> {
  if (!token) return;
  await prisma().session.deleteMany({ where: { id: sha256(token) } });
}
