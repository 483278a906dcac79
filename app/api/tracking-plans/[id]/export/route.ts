import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { exportTrackingPlan } from "@/lib/tracking-plans/plans";

export const dynamic = "force-dynamic";

export const GET = apiRoute(trackingPlanEndpoints.export, async ({ principal, params }) =>
  exportTrackingPlan({ workspaceId: principal.workspaceId, id: params.id }),
);
