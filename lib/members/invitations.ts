import "server-only";
import { prisma } from "../platform/db";
import { AppError, assertUuid, notFound } from "../platform/errors";
import { recordAudit, type Actor } from "../audit/record";
import type { Role } from "../api/access";
import { randomToken, sha256 } from "../auth/crypto";
import { hashPassword, verifyPassword } from "../auth/password";
import { createSession, type NewSession } from "../auth/sessions";
import { takePoint } from "../platform/rate-limits";
import type { AcceptInvitationInput, CreateInvitationInput, CreatedInvitationDto, InvitationDto } from "./contract";
import { sendInvitationEmail } from "./invite-mail";

/**
 * Invitations without an email server (docs/management-api.md#invitations): an owner makes a
 * single-use link for a role, copies it and sends it by any channel; with SMTP_URL set it is emailed
 * too. Only the link secret's hash is stored.
 */

const select = { id: true, role: true, email: true, expiresAt: true, acceptedAt: true, createdAt: true } as const;

const toDto = (r: {
  id: string;
  role: string;
  email: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  createdAt: Date;
}): InvitationDto => ({
  id: r.id,
  role: r.role as Role,
  email: r.email,
  expiresAt: r.expiresAt.toISOString(),
  acceptedAt: r.acceptedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
});

export const invitationUrl = (base: string, token: string) => `${base}/invite/${token}`;

export async function createInvitation(opts: {
  workspaceId: string;
  actor: Actor;
  input: CreateInvitationInput;
  base: string;
}): Promise<CreatedInvitationDto> {
  const token = randomToken("inv_", 24);
  const expiresAt = new Date(Date.now() + opts.input.expiresInHours * 3_600_000);
  const { row, workspaceName } = await prisma().$transaction(async (tx) => {
    const row = await tx.invitation.create({
      data: {
        workspaceId: opts.workspaceId,
        tokenHash: sha256(token),
        role: opts.input.role,
        email: opts.input.email ?? null,
        createdBy: opts.actor.type === "user" ? opts.actor.id : null,
        expiresAt,
      },
      select,
    });
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "invitation.create",
      resourceType: "invitation",
      resourceId: row.id,
      changes: { role: { before: null, after: row.role }, email: { before: null, after: row.email } },
    });
    const ws = await tx.workspace.findUniqueOrThrow({ where: { id: opts.workspaceId }, select: { name: true } });
    return { row, workspaceName: ws.name };
  });
  const url = invitationUrl(opts.base, token);
  // Sent after the commit: a mail server being down costs the email, never the invitation (the link is in the answer).
  const emailed = row.email ? await sendInvitationEmail({ to: row.email, url, workspaceName, role: row.role, expiresAt }) : false;
  return { ...toDto(row), url, emailed };
}

export async function listInvitations(opts: { workspaceId: string }): Promise<InvitationDto[]> {
  const rows = await prisma().invitation.findMany({
    where: { workspaceId: opts.workspaceId },
    orderBy: { createdAt: "desc" },
    take: 200,
    select,
  });
  return rows.map(toDto);
}

export async function revokeInvitation(opts: { workspaceId: string; actor: Actor; id: string }): Promise<void> {
  assertUuid(opts.id, "Invitation");
  await prisma().$transaction(async (tx) => {
    const { count } = await tx.invitation.deleteMany({ where: { id: opts.id, workspaceId: opts.workspaceId, acceptedAt: null } });
    if (count === 0) throw notFound("Invitation");
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "invitation.revoke",
      resourceType: "invitation",
      resourceId: opts.id,
    });
  });
}

/** What the invite page shows before accepting: the workspace and role, or why the link no longer works. */
export async function lookUpInvitation(
  token: string,
): Promise<{ workspaceName: string; role: Role; email: string | null; usable: boolean } | null> {
  const row = await prisma().invitation.findUnique({
    where: { tokenHash: sha256(token) },
    select: { role: true, email: true, expiresAt: true, acceptedAt: true, workspace: { select: { name: true } } },
  });
  if (!row) return null;
  return {
    workspaceName: row.workspace.name,
    role: row.role as Role,
    email: row.email,
    usable: !row.acceptedAt && row.expiresAt > new Date(),
  };
}

const UNUSABLE = new AppError("conflict", "This invitation was already used or has expired: ask for a new link");

/**
 * Accepts an invitation and logs the account in to its workspace: the logged-in account, an
 * existing account (its password checked) or a new one. The invitation is claimed with a
 * conditional update in the same transaction as the membership, so a link works exactly once.
 */
export async function acceptInvitation(opts: {
  input: AcceptInvitationInput;
  sessionUser: { userId: string; email: string } | null;
  address: string;
  userAgent: string | null;
}): Promise<NewSession> {
  await takePoint("loginAddress", opts.address);
  const { input } = opts;
  const invite = await prisma().invitation.findUnique({
    where: { tokenHash: sha256(input.token) },
    select: { id: true, workspaceId: true, role: true },
  });
  if (!invite) throw notFound("Invitation");
  let account: { userId: string; email: string; newHash?: string };
  if (opts.sessionUser) account = opts.sessionUser;
  else {
    if (!input.email) throw new AppError("validation_failed", "Some fields are invalid", { email: ["Enter your email address"] });
    const password = input.password ?? "";
    const existing = await prisma().user.findUnique({ where: { email: input.email }, select: { id: true, passwordHash: true } });
    if (existing) {
      if (!(await verifyPassword(password, existing.passwordHash)).ok) {
        throw new AppError("unauthorized", "This email has an account: enter its password to join (or log in first)");
      }
      account = { userId: existing.id, email: input.email };
    } else {
      if (password.length < 10)
        throw new AppError("validation_failed", "Some fields are invalid", { password: ["Use at least 10 characters"] });
      account = { userId: "", email: input.email, newHash: await hashPassword(password) };
    }
  }
  const userId = await prisma().$transaction(async (tx) => {
    const { count } = await tx.invitation.updateMany({
      where: { id: invite.id, acceptedAt: null, expiresAt: { gt: new Date() } },
      data: { acceptedAt: new Date() },
    });
    if (count === 0) throw UNUSABLE;
    const userId = account.newHash
      ? (await tx.user.create({ data: { email: account.email, passwordHash: account.newHash }, select: { id: true } })).id
      : account.userId;
    const already = await tx.membership.findUnique({ where: { userId_workspaceId: { userId, workspaceId: invite.workspaceId } } });
    if (already) throw new AppError("conflict", "You are already a member of this workspace");
    await tx.membership.create({ data: { userId, workspaceId: invite.workspaceId, role: invite.role } });
    await recordAudit(tx, {
      workspaceId: invite.workspaceId,
      actor: { type: "user", id: userId, label: account.email, address: opts.address },
      action: "member.join",
      resourceType: "member",
      resourceId: userId,
      changes: { email: { before: null, after: account.email }, role: { before: null, after: invite.role } },
    });
    return userId;
  });
  return createSession({ userId, workspaceId: invite.workspaceId, address: opts.address, userAgent: opts.userAgent });
}
