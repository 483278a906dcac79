import { routesOf } from "../api/routes";
import type { sourceEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const sourceRoutes = routesOf<typeof sourceEndpoints>({
  list: ["GET", "/api/sources"],
  create: ["POST", "/api/sources"],
  get: ["GET", "/api/sources/{id}"],
  update: ["PATCH", "/api/sources/{id}"],
  remove: ["DELETE", "/api/sources/{id}"],
  rotateKey: ["POST", "/api/sources/{id}/rotate-key"],
  events: ["GET", "/api/sources/{id}/events"],
});
