import "server-only";
import { prisma } from "../platform/db";
import { AppError, assertUuid, notFound } from "../platform/errors";
import type { Prisma } from "../platform/generated/prisma/client";
import { recordAudit, type Actor } from "../audit/record";
import type { Role } from "../api/access";
import type { MemberDto } from "./contract";

type Tx = Prisma.TransactionClient;
type Change = { workspaceId: string; actor: Actor };

const LAST_OWNER = new AppError("conflict", "A workspace always has at least one owner: make someone else an owner first");

export async function listMembers(opts: { workspaceId: string }): Promise<MemberDto[]> {
  const rows = await prisma().membership.findMany({
    where: { workspaceId: opts.workspaceId },
    orderBy: { createdAt: "asc" },
    select: { userId: true, role: true, createdAt: true, user: { select: { email: true } } },
  });
  return rows.map((m) => ({ userId: m.userId, email: m.user.email, role: m.role as Role, createdAt: m.createdAt.toISOString() }));
}

/**
 * Owner changes are serialised on the workspace's row, so two owners demoting each other at once
 * cannot leave the workspace without one (docs/management-api.md#roles).
 */
async function lockedMember(tx: Tx, opts: { workspaceId: string; userId: string }) {
  assertUuid(opts.userId, "Member");
  await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${opts.workspaceId}::uuid FOR UPDATE`;
  const m = await tx.membership.findUnique({
    where: { userId_workspaceId: { userId: opts.userId, workspaceId: opts.workspaceId } },
    select: { role: true, createdAt: true, user: { select: { email: true } } },
  });
  if (!m) throw notFound("Member");
  return m;
}

async function assertOtherOwner(tx: Tx, opts: { workspaceId: string; userId: string }): Promise<void> {
  const others = await tx.membership.count({ where: { workspaceId: opts.workspaceId, role: "owner", userId: { not: opts.userId } } });
  if (others === 0) throw LAST_OWNER;
}

export async function changeMemberRole(opts: Change & { userId: string; role: Role }): Promise<MemberDto> {
  return prisma().$transaction(async (tx) => {
    const m = await lockedMember(tx, opts);
    if (m.role === "owner" && opts.role !== "owner") await assertOtherOwner(tx, opts);
    await tx.membership.update({
      where: { userId_workspaceId: { userId: opts.userId, workspaceId: opts.workspaceId } },
      data: { role: opts.role },
    });
    if (m.role !== opts.role) {
      await recordAudit(tx, {
        workspaceId: opts.workspaceId,
        actor: opts.actor,
        action: "member.role_change",
        resourceType: "member",
        resourceId: opts.userId,
        changes: { role: { before: m.role, after: opts.role }, email: { before: m.user.email, after: m.user.email } },
      });
    }
    return { userId: opts.userId, email: m.user.email, role: opts.role, createdAt: m.createdAt.toISOString() };
  });
}

/** Removes a member; their sessions in this workspace end with it. */
export async function removeMember(opts: Change & { userId: string }): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const m = await lockedMember(tx, opts);
    if (m.role === "owner") await assertOtherOwner(tx, opts);
    await tx.membership.delete({ where: { userId_workspaceId: { userId: opts.userId, workspaceId: opts.workspaceId } } });
    await tx.session.deleteMany({ where: { userId: opts.userId, workspaceId: opts.workspaceId } });
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "member.remove",
      resourceType: "member",
      resourceId: opts.userId,
      changes: { email: { before: m.user.email, after: null }, role: { before: m.role, after: null } },
    });
  });
}
