import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { prisma } from "../platform/db";
import type { CreateWorkspaceInput, CreatedWorkspaceDto } from "./contract";
import { createApiToken } from "./tokens";

/**
 * Operator-only: a new workspace with a first API token (automation, multi-tenant setups, tests),
 * both in the new workspace's audit log under the operator, in the same transaction (docs/management-api.md#audit-log).
 */
export async function createWorkspace(opts: CreateWorkspaceInput & { actor: Actor }): Promise<CreatedWorkspaceDto> {
  return prisma().$transaction(async (tx) => {
    const ws = await tx.workspace.create({ data: { name: opts.name }, select: { id: true, name: true, createdAt: true } });
    await recordAudit(tx, {
      workspaceId: ws.id,
      actor: opts.actor,
      action: "workspace.create",
      resourceType: "workspace",
      resourceId: ws.id,
      changes: { name: { before: null, after: ws.name } },
    });
    const token = await createApiToken({ workspaceId: ws.id, name: "initial", actor: opts.actor }, tx);
    return { workspace: { id: ws.id, name: ws.name, createdAt: ws.createdAt.toISOString() }, token: token.token };
  });
}
