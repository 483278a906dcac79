import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { previewAudience } from "@/lib/audiences/members";

export const dynamic = "force-dynamic";

/** The builder's live preview: `{condition, sourceIds}` → `{count}`. */
export const POST = apiRoute(audienceEndpoints.preview, async ({ principal, body }) =>
  previewAudience({ workspaceId: principal.workspaceId, input: body }),
);
