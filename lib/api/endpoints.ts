import { alertEndpoints } from "../alerts/contract";
import { audienceEndpoints } from "../audiences/contract";
import { auditEndpoints } from "../audit/contract";
import { backfillEndpoints } from "../backfills/contract";
import { accountEndpoints, authEndpoints } from "../auth/contract";
import { captureEndpoints } from "../capture/contract";
import { deletionEndpoints } from "../deletions/contract";
import { destinationEndpoints } from "../destinations/contract";
import { openApiEndpoints } from "../openapi/contract";
import { memberEndpoints } from "../members/contract";
import { requestLogEndpoints } from "../request-log/contract";
import { sourceEndpoints } from "../sources/contract";
import { trackingPlanEndpoints } from "../tracking-plans/contract";
import type { Endpoint } from "./endpoint";

/**
 * Every Management API endpoint, by feature (browser-safe). The API reference is generated from this
 * list, and test/api-endpoints.test.ts proves it names exactly the route handlers under app/api.
 * A new feature adds its contract's endpoints here.
 */
export const ENDPOINTS_BY_FEATURE = {
  auth: authEndpoints,
  account: accountEndpoints,
  sources: sourceEndpoints,
  "tracking plans": trackingPlanEndpoints,
  destinations: destinationEndpoints,
  backfills: backfillEndpoints,
  alerts: alertEndpoints,
  "request log": requestLogEndpoints,
  capture: captureEndpoints,
  audiences: audienceEndpoints,
  deletions: deletionEndpoints,
  "API reference": openApiEndpoints,
  members: memberEndpoints,
  audit: auditEndpoints,
} satisfies Record<string, Record<string, Endpoint>>;

export const ENDPOINTS: Endpoint[] = Object.values(ENDPOINTS_BY_FEATURE).flatMap((group) => Object.values(group));
