import "server-only";
import { prisma } from "../platform/db";
import type { CreateWorkspaceInput, CreatedWorkspaceDto } from "./contract";
import { createApiToken } from "./tokens";

/** Operator-only: a new workspace with a first API token (automation, multi-tenant setups, tests). */
export async function createWorkspace(opts: CreateWorkspaceInput): Promise<CreatedWorkspaceDto> {
  const ws = await prisma().workspace.create({ data: { name: opts.name }, select: { id: true, name: true, createdAt: true } });
  const token = await createApiToken({ workspaceId: ws.id, name: "initial" });
  return { workspace: { id: ws.id, name: ws.name, createdAt: ws.createdAt.toISOString() }, token: token.token };
}
