import { routesOf } from "../api/routes";
import type { alertEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const alertRoutes = routesOf<typeof alertEndpoints>({
  list: ["GET", "/api/alerts"],
  getSettings: ["GET", "/api/alerts/settings"],
  updateSettings: ["PUT", "/api/alerts/settings"],
  enableUrl: ["POST", "/api/destinations/{id}/enable-url"],
});
