import { apiRoute, parseBody } from "@/lib/http/route";
import { previewAudienceSchema } from "@/lib/audiences/schemas";
import { previewAudience } from "@/lib/audiences/members";

export const dynamic = "force-dynamic";

/** The builder's live preview: `{condition, sourceIds}` → `{count}`. */
export const POST = apiRoute(async ({ req, principal }) => previewAudience({ workspaceId: principal.workspaceId, input: await parseBody(req, previewAudienceSchema) }));
