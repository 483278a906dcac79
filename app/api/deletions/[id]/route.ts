import { apiRoute } from "@/lib/api/api-route";
import { deletionEndpoints } from "@/lib/deletions/contract";
import { getDeletionRequest } from "@/lib/deletions/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute(deletionEndpoints.get, async ({ principal, params }) =>
  getDeletionRequest({ workspaceId: principal.workspaceId, id: params.id }),
);
