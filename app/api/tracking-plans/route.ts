import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { createTrackingPlan, listTrackingPlans } from "@/lib/tracking-plans/plans";

export const dynamic = "force-dynamic";

export const GET = apiRoute(trackingPlanEndpoints.list, async ({ principal }) => ({
  trackingPlans: await listTrackingPlans({ workspaceId: principal.workspaceId }),
}));

export const POST = apiRoute(trackingPlanEndpoints.create, async ({ principal, actor, body }) =>
  createTrackingPlan({ workspaceId: principal.workspaceId, actor, input: body }),
);
