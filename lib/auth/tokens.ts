import "server-only";
import type { Prisma } from "../platform/generated/prisma/client";
import { prisma } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import { recordAudit, type Actor } from "../audit/record";
import type { ApiTokenDto, CreatedApiTokenDto, TokenScope } from "./contract";
import { randomToken, sha256 } from "./crypto";

const select = {
  id: true,
  name: true,
  prefix: true,
  scope: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} satisfies Prisma.ApiTokenSelect;
type Row = Prisma.ApiTokenGetPayload<{ select: typeof select }>;
type Tx = Prisma.TransactionClient;

function toDto(t: Row): ApiTokenDto {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scope: t.scope === "read" ? "read" : "full",
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a token; the plain value is returned once and never stored. */
export async function createApiToken(
  opts: { workspaceId: string; name: string; scope?: TokenScope; actor?: Actor },
  db: Tx = prisma(),
): Promise<CreatedApiTokenDto> {
  const token = randomToken("er_", 32);
  const row = await db.apiToken.create({
    data: {
      workspaceId: opts.workspaceId,
      name: opts.name,
      scope: opts.scope ?? "full",
      tokenHash: sha256(token),
      prefix: token.slice(0, 10),
    },
    select,
  });
  if (opts.actor) {
    await recordAudit(db, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "token.create",
      resourceType: "token",
      resourceId: row.id,
      changes: { name: { before: null, after: row.name }, scope: { before: null, after: row.scope } },
    });
  }
  return { ...toDto(row), token };
}

export async function listApiTokens(opts: { workspaceId: string }): Promise<ApiTokenDto[]> {
  const rows = await prisma().apiToken.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "desc" }, select });
  return rows.map(toDto);
}

export async function revokeApiToken(opts: { workspaceId: string; id: string; actor: Actor }): Promise<ApiTokenDto> {
  // Not a uuid: no such token (Postgres would reject the comparison and make it a 500).
  assertUuid(opts.id, "Token");
  return prisma().$transaction(async (tx) => {
    const { count } = await tx.apiToken.updateMany({
      where: { id: opts.id, workspaceId: opts.workspaceId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const row = await tx.apiToken.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select });
    if (!row || (count === 0 && !row.revokedAt)) throw notFound("Token");
    if (count > 0) {
      await recordAudit(tx, {
        workspaceId: opts.workspaceId,
        actor: opts.actor,
        action: "token.revoke",
        resourceType: "token",
        resourceId: row.id,
      });
    }
    return toDto(row);
  });
}

/** Resolves a bearer token to its workspace, or null when unknown or revoked. */
export async function findApiToken(token: string): Promise<{ id: string; workspaceId: string; name: string; scope: TokenScope } | null> {
  const row = await prisma().apiToken.findUnique({
    where: { tokenHash: sha256(token) },
    select: { id: true, workspaceId: true, name: true, scope: true, revokedAt: true, lastUsedAt: true },
  });
  if (!row || row.revokedAt) return null;
  // Touch last-used at most once a minute to keep API calls cheap.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await prisma()
      .apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } })
      .catch(() => {});
  }
  return { id: row.id, workspaceId: row.workspaceId, name: row.name, scope: row.scope === "read" ? "read" : "full" };
}
