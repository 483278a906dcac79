import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { deleteAudience, getAudience, updateAudience } from "@/lib/audiences/audiences";

export const dynamic = "force-dynamic";

export const GET = apiRoute(audienceEndpoints.get, async ({ principal, params }) =>
  getAudience({ workspaceId: principal.workspaceId, id: params.id }),
);

export const PATCH = apiRoute(audienceEndpoints.update, async ({ principal, actor, params, body }) =>
  updateAudience({ workspaceId: principal.workspaceId, actor, id: params.id, input: body }),
);

export const DELETE = apiRoute(audienceEndpoints.remove, async ({ principal, actor, params }) =>
  deleteAudience({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
