import { routesOf } from "../api/routes";
import type { backfillEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const backfillRoutes = routesOf<typeof backfillEndpoints>({
  create: ["POST", "/api/destinations/{id}/backfills"],
  list: ["GET", "/api/destinations/{id}/backfills"],
  get: ["GET", "/api/destinations/{id}/backfills/{backfillId}"],
  cancel: ["DELETE", "/api/destinations/{id}/backfills/{backfillId}"],
});
