import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { createAudience, listAudiences } from "@/lib/audiences/audiences";

export const dynamic = "force-dynamic";

export const GET = apiRoute(audienceEndpoints.list, async ({ principal }) => ({
  audiences: await listAudiences({ workspaceId: principal.workspaceId }),
}));

export const POST = apiRoute(audienceEndpoints.create, async ({ principal, actor, body }) =>
  createAudience({ workspaceId: principal.workspaceId, actor, input: body }),
);
