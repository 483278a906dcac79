import { apiRoute } from "@/lib/api/api-route";
import { authEndpoints } from "@/lib/auth/contract";
import { revokeApiToken } from "@/lib/auth/tokens";

export const dynamic = "force-dynamic";

/** Revokes the token: it answers 401 from then on. */
export const DELETE = apiRoute(authEndpoints.revokeToken, async ({ principal, actor, params }) =>
  revokeApiToken({ workspaceId: principal.workspaceId, id: params.id, actor }),
);
