import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { previewMapping } from "@/lib/destinations/mapping-preview";

export const dynamic = "force-dynamic";

/** The destination form's request preview: `{sourceIds, urls, method?, mapping?, headers?, limit?}` → each recent call's request. */
export const POST = apiRoute(destinationEndpoints.mappingPreview, async ({ principal, body }) =>
  previewMapping({ workspaceId: principal.workspaceId, input: body }),
);
