import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { listPlanViolations } from "@/lib/tracking-plans/violations";

export const dynamic = "force-dynamic";

export const GET = apiRoute(trackingPlanEndpoints.violations, async ({ principal, params, query }) =>
  listPlanViolations({ workspaceId: principal.workspaceId, id: params.id, hours: query.hours }),
);
