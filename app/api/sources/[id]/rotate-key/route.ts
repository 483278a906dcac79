import { apiRoute } from "@/lib/api/api-route";
import { sourceEndpoints } from "@/lib/sources/contract";
import { rotateWriteKey } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";

export const POST = apiRoute(sourceEndpoints.rotateKey, async ({ principal, actor, params, body }) =>
  rotateWriteKey({ workspaceId: principal.workspaceId, actor, id: params.id, input: body }),
);
