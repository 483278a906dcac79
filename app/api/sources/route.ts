import { apiRoute } from "@/lib/api/api-route";
import { sourceEndpoints } from "@/lib/sources/contract";
import { createSource, listSources } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";

export const GET = apiRoute(sourceEndpoints.list, async ({ principal }) => ({
  sources: await listSources({ workspaceId: principal.workspaceId, role: principal.role }),
}));

export const POST = apiRoute(sourceEndpoints.create, async ({ principal, actor, body }) =>
  createSource({ workspaceId: principal.workspaceId, actor, input: body }),
);
