import "server-only";
import { prisma } from "../platform/db";
import type { Prisma } from "../platform/generated/prisma/client";
import type { AuditEventDto, AuditPageDto, AuditQuery } from "./contract";

/** GET /api/audit: newest first, keyset on id (the workspace_id, id DESC indexes). */
export async function listAuditEvents(opts: { workspaceId: string; query: AuditQuery }): Promise<AuditPageDto> {
  const q = opts.query;
  const where: Prisma.AuditEventWhereInput = {
    workspaceId: opts.workspaceId,
    ...(q.actor && { OR: [{ actorId: q.actor }, { actorLabel: { equals: q.actor, mode: "insensitive" } }] }),
    ...(q.resource && { resourceType: q.resource }),
    ...(q.resourceId && { resourceId: q.resourceId }),
    ...(q.action && (q.action.endsWith(".") ? { action: { startsWith: q.action } } : { action: q.action })),
    ...((q.from || q.to) && { at: { ...(q.from && { gte: new Date(q.from) }), ...(q.to && { lt: new Date(q.to) }) } }),
    ...(q.cursor && { id: { lt: BigInt(q.cursor) } }),
  };
  const rows = await prisma().auditEvent.findMany({ where, orderBy: { id: "desc" }, take: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  return {
    events: page.map(
      (r): AuditEventDto => ({
        id: String(r.id),
        at: r.at.toISOString(),
        actor: { type: r.actorType as AuditEventDto["actor"]["type"], id: r.actorId, label: r.actorLabel },
        address: r.address,
        action: r.action,
        resourceType: r.resourceType,
        resourceId: r.resourceId,
        changes: (r.changes as AuditEventDto["changes"]) ?? null,
      }),
    ),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1].id) : null,
  };
}
