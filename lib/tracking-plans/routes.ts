import { routesOf } from "../api/routes";
import type { trackingPlanEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const trackingPlanRoutes = routesOf<typeof trackingPlanEndpoints>({
  list: ["GET", "/api/tracking-plans"],
  create: ["POST", "/api/tracking-plans"],
  get: ["GET", "/api/tracking-plans/{id}"],
  update: ["PATCH", "/api/tracking-plans/{id}"],
  remove: ["DELETE", "/api/tracking-plans/{id}"],
  violations: ["GET", "/api/tracking-plans/{id}/violations"],
  preview: ["POST", "/api/tracking-plans/preview"],
  validateSchema: ["POST", "/api/tracking-plans/validate-schema"],
  import: ["POST", "/api/tracking-plans/import"],
  export: ["GET", "/api/tracking-plans/{id}/export"],
});
