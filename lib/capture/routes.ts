import { routesOf } from "../api/routes";
import type { captureEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const captureRoutes = routesOf<typeof captureEndpoints>({
  list: ["GET", "/api/capture-bins"],
  create: ["POST", "/api/capture-bins"],
  get: ["GET", "/api/capture-bins/{id}"],
  update: ["PATCH", "/api/capture-bins/{id}"],
  remove: ["DELETE", "/api/capture-bins/{id}"],
  requests: ["GET", "/api/capture-bins/{id}/requests"],
  request: ["GET", "/api/capture-bins/{id}/requests/{requestId}"],
  verify: ["POST", "/api/capture-bins/{id}/requests/{requestId}/verify"],
  clearRequests: ["DELETE", "/api/capture-bins/{id}/requests"],
});
