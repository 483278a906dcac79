import { apiRoute } from "@/lib/api/api-route";
import { trackingPlanEndpoints } from "@/lib/tracking-plans/contract";
import { checkSchema } from "@/lib/tracking-plans/plans";

export const dynamic = "force-dynamic";

/** The plan editor's check as you type: the schema as a plan would compile it (docs/tracking-plans.md#schemas). */
export const POST = apiRoute(trackingPlanEndpoints.validateSchema, async ({ body }) => checkSchema(body.schema));
