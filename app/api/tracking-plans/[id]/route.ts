import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { deleteTrackingPlan, getTrackingPlan, updateTrackingPlan } from "@/lib/tracking-plans/plans";

export const dynamic = "force-dynamic";

export const GET = apiRoute(trackingPlanEndpoints.get, async ({ principal, params }) =>
  getTrackingPlan({ workspaceId: principal.workspaceId, id: params.id }),
);

export const PATCH = apiRoute(trackingPlanEndpoints.update, async ({ principal, actor, params, body }) =>
  updateTrackingPlan({ workspaceId: principal.workspaceId, actor, id: params.id, input: body }),
);

export const DELETE = apiRoute(trackingPlanEndpoints.remove, async ({ principal, actor, params }) =>
  deleteTrackingPlan({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
