import { routesOf } from "../api/routes";
import type { requestLogEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const requestLogRoutes = routesOf<typeof requestLogEndpoints>({
  attempts: ["GET", "/api/attempts"],
  deliveries: ["GET", "/api/deliveries"],
  attempt: ["GET", "/api/attempts/{id}"],
  message: ["GET", "/api/messages/{id}"],
  replay: ["POST", "/api/messages/replay"],
  deliveryStats: ["GET", "/api/stats/deliveries"],
  destinationStats: ["GET", "/api/stats/destinations"],
  failureGroups: ["GET", "/api/stats/failures"],
});
