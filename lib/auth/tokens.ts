import "server-only";
import type { Prisma } from "../platform/generated/prisma/client";
import { prisma } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import type { ApiTokenDto, CreatedApiTokenDto } from "./contract";
import { randomToken, sha256 } from "./crypto";

const select = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } satisfies Prisma.ApiTokenSelect;
type Row = Prisma.ApiTokenGetPayload<{ select: typeof select }>;

function toDto(t: Row): ApiTokenDto {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a token; the plain value is returned once and never stored. */
export async function createApiToken(opts: { workspaceId: string; name: string }): Promise<CreatedApiTokenDto> {
  const token = randomToken("er_", 32);
  const row = await prisma().apiToken.create({
    data: { workspaceId: opts.workspaceId, name: opts.name, tokenHash: sha256(token), prefix: token.slice(0, 10) },
    select,
  });
  return { ...toDto(row), token };
}

export async function listApiTokens(opts: { workspaceId: string }): Promise<ApiTokenDto[]> {
  const rows = await prisma().apiToken.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "desc" }, select });
  return rows.map(toDto);
}

export async function revokeApiToken(opts: { workspaceId: string; id: string }): Promise<ApiTokenDto> {
  // Not a uuid: no such token (Postgres would reject the comparison and make it a 500).
  assertUuid(opts.id, "Token");
  const { count } = await prisma().apiToken.updateMany({
    where: { id: opts.id, workspaceId: opts.workspaceId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  const row = await prisma().apiToken.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select });
  if (!row || (count === 0 && !row.revokedAt)) throw notFound("Token");
  return toDto(row);
}

/** Resolves a bearer token to its workspace, or null when unknown or revoked. */
export async function findApiToken(token: string): Promise<{ id: string; workspaceId: string } | null> {
  const row = await prisma().apiToken.findUnique({
    where: { tokenHash: sha256(token) },
    select: { id: true, workspaceId: true, revokedAt: true, lastUsedAt: true },
  });
  if (!row || row.revokedAt) return null;
  // Touch last-used at most once a minute to keep API calls cheap.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await prisma()
      .apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } })
      .catch(() => {});
  }
  return { id: row.id, workspaceId: row.workspaceId };
}
