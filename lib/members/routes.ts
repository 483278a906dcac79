import { routesOf } from "../api/routes";
import type { memberEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const memberRoutes = routesOf<typeof memberEndpoints>({
  list: ["GET", "/api/members"],
  changeRole: ["PATCH", "/api/members/{id}"],
  remove: ["DELETE", "/api/members/{id}"],
  listInvitations: ["GET", "/api/invitations"],
  createInvitation: ["POST", "/api/invitations"],
  revokeInvitation: ["DELETE", "/api/invitations/{id}"],
  acceptInvitation: ["POST", "/api/invitations/accept"],
});
