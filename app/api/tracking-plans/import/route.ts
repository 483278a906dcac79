import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { importTrackingPlan } from "@/lib/tracking-plans/plans";

export const dynamic = "force-dynamic";

export const POST = apiRoute(trackingPlanEndpoints.import, async ({ principal, actor, body }) =>
  importTrackingPlan({ workspaceId: principal.workspaceId, actor, input: body }),
);
