import { apiRoute } from "@/lib/api/api-route";
import { deletionEndpoints } from "@/lib/deletions/contract";
import { createDeletionRequest, listDeletionRequests } from "@/lib/deletions/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute(deletionEndpoints.list, async ({ principal, query }) =>
  listDeletionRequests({ workspaceId: principal.workspaceId, ...query }),
);

export const POST = apiRoute(deletionEndpoints.create, async ({ principal, actor, body }) =>
  createDeletionRequest({ workspaceId: principal.workspaceId, actor, input: body }),
);
