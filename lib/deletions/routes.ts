import { routesOf } from "../api/routes";
import type { deletionEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const deletionRoutes = routesOf<typeof deletionEndpoints>({
  list: ["GET", "/api/deletions"],
  create: ["POST", "/api/deletions"],
  get: ["GET", "/api/deletions/{id}"],
});
