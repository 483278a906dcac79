import "server-only";
import type { Principal } from "../api/principal";
import type { Role } from "../api/access";
import { recordAudit, type Actor } from "../audit/record";
import { prisma } from "../platform/db";
import { AppError, notFound } from "../platform/errors";
import { type ChangePasswordInput, type MeDto, type SessionDto, WORKSPACE_LIMITS } from "./contract";
import { hashPassword, verifyPassword } from "./password";

/** Your account (docs/management-api.md#your-account-and-workspaces): only a dashboard session has one, not an API token. */
type SessionPrincipal = Extract<Principal, { kind: "session" }>;

export function requireSession(p: Principal): SessionPrincipal {
  if (p.kind !== "session") throw new AppError("forbidden", "This is about your account: log in to the dashboard (API tokens have none)");
  return p;
}

export async function getMe(p: Principal): Promise<MeDto> {
  const s = requireSession(p);
  const memberships = await prisma().membership.findMany({
    where: { userId: s.userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true } } },
  });
  const workspaces = memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role as Role }));
  const current = workspaces.find((w) => w.id === s.workspaceId);
  if (!current) throw notFound("Workspace");
  return { email: s.email, role: s.role, workspace: { id: current.id, name: current.name }, workspaces };
}

/**
 * A new workspace with you as its owner; the session moves to it. An account owns at most
 * WORKSPACE_LIMITS.ownedPerAccount workspaces: its user row is locked while it counts, so that
 * creates sent all at once cannot pass the cap.
 */
export async function createOwnWorkspace(p: Principal, opts: { name: string; actor: Actor }): Promise<{ id: string; name: string }> {
  const s = requireSession(p);
  return prisma().$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM users WHERE id = ${s.userId}::uuid FOR UPDATE`;
    const owned = await tx.membership.count({ where: { userId: s.userId, role: "owner" } });
    if (owned >= WORKSPACE_LIMITS.ownedPerAccount) {
      throw new AppError("conflict", `An account can own at most ${WORKSPACE_LIMITS.ownedPerAccount} workspaces, and yours owns ${owned}`);
    }
    const ws = await tx.workspace.create({ data: { name: opts.name }, select: { id: true, name: true } });
    await tx.membership.create({ data: { userId: s.userId, workspaceId: ws.id, role: "owner" } });
    await tx.session.update({ where: { id: s.sessionId }, data: { workspaceId: ws.id } });
    await recordAudit(tx, {
      workspaceId: ws.id,
      actor: opts.actor,
      action: "workspace.create",
      resourceType: "workspace",
      resourceId: ws.id,
      changes: { name: { before: null, after: ws.name } },
    });
    return ws;
  });
}

export async function switchWorkspace(p: Principal, workspaceId: string): Promise<{ id: string; name: string }> {
  const s = requireSession(p);
  const m = await prisma().membership.findUnique({
    where: { userId_workspaceId: { userId: s.userId, workspaceId } },
    select: { workspace: { select: { id: true, name: true } } },
  });
  if (!m) throw notFound("Workspace");
  await prisma().session.update({ where: { id: s.sessionId }, data: { workspaceId } });
  return m.workspace;
}

export async function renameWorkspace(opts: { workspaceId: string; actor: Actor; name: string }): Promise<{ id: string; name: string }> {
  return prisma().$transaction(async (tx) => {
    const before = await tx.workspace.findUniqueOrThrow({ where: { id: opts.workspaceId }, select: { name: true } });
    const ws = await tx.workspace.update({ where: { id: opts.workspaceId }, data: { name: opts.name }, select: { id: true, name: true } });
    await recordAudit(tx, {
      workspaceId: ws.id,
      actor: opts.actor,
      action: "workspace.rename",
      resourceType: "workspace",
      resourceId: ws.id,
      changes: { name: { before: before.name, after: ws.name } },
    });
    return ws;
  });
}

/** Checks the current password, stores the new one and ends every other session of the account. */
export async function changePassword(p: Principal, input: ChangePasswordInput, actor: Actor): Promise<void> {
  const s = requireSession(p);
  const user = await prisma().user.findUniqueOrThrow({ where: { id: s.userId }, select: { passwordHash: true } });
  if (!(await verifyPassword(input.currentPassword, user.passwordHash)).ok) {
    throw new AppError("validation_failed", "Some fields are invalid", { currentPassword: ["This is not your current password"] });
  }
  const passwordHash = await hashPassword(input.newPassword);
  await prisma().$transaction(async (tx) => {
    await tx.user.update({ where: { id: s.userId }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: s.userId, id: { not: s.sessionId } } });
    await recordAudit(tx, {
      workspaceId: s.workspaceId,
      actor,
      action: "account.password_change",
      resourceType: "session",
      resourceId: s.userId,
    });
  });
}

export async function listSessions(p: Principal): Promise<SessionDto[]> {
  const s = requireSession(p);
  const rows = await prisma().session.findMany({
    where: { userId: s.userId, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { id: true, createdAt: true, expiresAt: true, address: true, userAgent: true },
  });
  return rows.map((r) => ({
    id: r.id.slice(0, 8),
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    address: r.address,
    userAgent: r.userAgent,
    current: r.id === s.sessionId,
  }));
}

export async function signOutOtherSessions(p: Principal, actor: Actor): Promise<{ ended: number }> {
  const s = requireSession(p);
  return prisma().$transaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { userId: s.userId, id: { not: s.sessionId } } });
    await recordAudit(tx, {
      workspaceId: s.workspaceId,
      actor,
      action: "account.sign_out_others",
      resourceType: "session",
      resourceId: s.userId,
      changes: { ended: { before: null, after: count } },
    });
    return { ended: count };
  });
}

/** The switcher's list (dashboard layout): every workspace of the account, oldest membership first. */
export async function listUserWorkspaces(userId: string): Promise<{ id: string; name: string; role: Role }[]> {
  const rows = await prisma().membership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true } } },
  });
  return rows.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role as Role }));
}
