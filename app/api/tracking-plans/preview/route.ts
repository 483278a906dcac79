import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { previewPlan } from "@/lib/tracking-plans/preview";

export const dynamic = "force-dynamic";

/** The plan editor's "test against recent calls": `{rules, violations?, unplanned?, sourceIds, limit?}`. */
export const POST = apiRoute(trackingPlanEndpoints.preview, async ({ principal, body }) =>
  previewPlan({ workspaceId: principal.workspaceId, input: body }),
);
