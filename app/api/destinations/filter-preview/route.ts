import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { previewFilter } from "@/lib/destinations/filter-preview";

export const dynamic = "force-dynamic";

/** The destination form's filter preview: `{sourceIds, filter, limit?}` → how many recent calls would pass. */
export const POST = apiRoute(destinationEndpoints.filterPreview, async ({ principal, body }) =>
  previewFilter({ workspaceId: principal.workspaceId, input: body }),
);
