import { routesOf } from "../api/routes";
import type { destinationEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const destinationRoutes = routesOf<typeof destinationEndpoints>({
  list: ["GET", "/api/destinations"],
  create: ["POST", "/api/destinations"],
  get: ["GET", "/api/destinations/{id}"],
  update: ["PATCH", "/api/destinations/{id}"],
  remove: ["DELETE", "/api/destinations/{id}"],
  test: ["POST", "/api/destinations/{id}/test"],
  reveal: ["POST", "/api/destinations/{id}/reveal"],
  rotateSecret: ["POST", "/api/destinations/{id}/rotate-secret"],
  filterPreview: ["POST", "/api/destinations/filter-preview"],
  mappingPreview: ["POST", "/api/destinations/mapping-preview"],
  pause: ["POST", "/api/destinations/{id}/pause"],
  resume: ["POST", "/api/destinations/{id}/resume"],
  health: ["GET", "/api/destinations/{id}/health"],
});
