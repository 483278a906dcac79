import { apiRoute, parseBody, parseQuery } from "@/lib/http/route";
import { createDeletionSchema, listDeletionsQuery } from "@/lib/deletions/schemas";
import { createDeletionRequest, listDeletionRequests } from "@/lib/deletions/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ req, principal }) =>
  listDeletionRequests({ workspaceId: principal.workspaceId, ...parseQuery(req, listDeletionsQuery) }),
);

export const POST = apiRoute(
  async ({ req, principal }) => createDeletionRequest({ workspaceId: principal.workspaceId, input: await parseBody(req, createDeletionSchema) }),
  { status: 201 },
);
