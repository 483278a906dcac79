import { routesOf } from "../api/routes";
import type { auditEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const auditRoutes = routesOf<typeof auditEndpoints>({
  list: ["GET", "/api/audit"],
});
