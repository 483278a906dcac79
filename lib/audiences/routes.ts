import { routesOf } from "../api/routes";
import type { audienceEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const audienceRoutes = routesOf<typeof audienceEndpoints>({
  list: ["GET", "/api/audiences"],
  create: ["POST", "/api/audiences"],
  get: ["GET", "/api/audiences/{id}"],
  update: ["PATCH", "/api/audiences/{id}"],
  remove: ["DELETE", "/api/audiences/{id}"],
  sync: ["POST", "/api/audiences/{id}/sync"],
  syncs: ["GET", "/api/audiences/{id}/syncs"],
  members: ["GET", "/api/audiences/{id}/members"],
  preview: ["POST", "/api/audiences/preview"],
});
