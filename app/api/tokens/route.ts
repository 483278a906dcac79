import { apiRoute } from "@/lib/api/api-route";
import { authEndpoints } from "@/lib/auth/contract";
import { createApiToken, listApiTokens } from "@/lib/auth/tokens";
import { takePoint } from "@/lib/platform/rate-limits";

export const dynamic = "force-dynamic";

export const GET = apiRoute(authEndpoints.listTokens, async ({ principal }) => ({
  tokens: await listApiTokens({ workspaceId: principal.workspaceId }),
}));

// Throttled per workspace (docs/operations.md#throttling).
export const POST = apiRoute(authEndpoints.createToken, async ({ principal, actor, body }) => {
  await takePoint("createToken", principal.workspaceId);
  return createApiToken({ workspaceId: principal.workspaceId, name: body.name, scope: body.scope, actor });
});
