import "server-only";
import type pg from "pg";
import type { Prisma } from "../platform/generated/prisma/client";

/**
 * The audit log's one writer (docs/management-api.md#audit-log). Every change calls it with the
 * transaction the change is made in, so a rolled-back change leaves no row and a committed one
 * always has its row.
 */

/** Who did it: a member (by email), an API token (by name), the operator's token, or nobody logged in (a failed login). */
export type Actor = {
  type: "user" | "token" | "operator" | "anonymous";
  id: string | null;
  label: string;
  address: string | null;
};

/** Before → after per field; secrets and header values only ever as CHANGED. */
export type FieldChanges = Record<string, { before: unknown; after: unknown }>;

export type AuditEntry = {
  workspaceId: string;
  actor: Actor;
  /** resource.verb: destination.update, member.role_change, auth.login_failed … */
  action: string;
  resourceType: string;
  resourceId?: string | null;
  changes?: FieldChanges | null;
};

/** The transaction of the change: Prisma's, or a pooled pg client inside BEGIN … COMMIT (lib/platform/db.ts withTransaction). */
export type AuditDb = Prisma.TransactionClient | pg.ClientBase;

export async function recordAudit(db: AuditDb, e: AuditEntry): Promise<void> {
  if (!("auditEvent" in db)) {
    await db.query(
      `INSERT INTO audit_events (workspace_id, actor_type, actor_id, actor_label, address, action, resource_type, resource_id, changes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        e.workspaceId,
        e.actor.type,
        e.actor.id,
        e.actor.label,
        e.actor.address,
        e.action,
        e.resourceType,
        e.resourceId ?? null,
        e.changes ? JSON.stringify(e.changes) : null,
      ],
    );
    return;
  }
  await db.auditEvent.create({
    data: {
      workspaceId: e.workspaceId,
      actorType: e.actor.type,
      actorId: e.actor.id,
      actorLabel: e.actor.label,
      address: e.actor.address,
      action: e.action,
      resourceType: e.resourceType,
      resourceId: e.resourceId ?? null,
      changes: (e.changes ?? undefined) as Prisma.InputJsonValue | undefined,
    },
  });
}

/** Changes made by the system itself or a script (benchmarks, tests calling lib directly), not by a person or a token. */
export const systemActor = (label: string): Actor => ({ type: "operator", id: null, label, address: null });
