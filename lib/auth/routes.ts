import { routesOf } from "../api/routes";
import type { accountEndpoints, authEndpoints } from "./contract";

/** The contract's endpoints as the dashboard calls them, without their schemas (lib/api/routes.ts). */
export const accountRoutes = routesOf<typeof accountEndpoints>({
  me: ["GET", "/api/me"],
  createOwnWorkspace: ["POST", "/api/me/workspaces"],
  switchWorkspace: ["PUT", "/api/me/workspace"],
  changePassword: ["POST", "/api/me/password"],
  sessions: ["GET", "/api/me/sessions"],
  signOutOthers: ["DELETE", "/api/me/sessions"],
  renameWorkspace: ["PATCH", "/api/workspace"],
});

export const authRoutes = routesOf<typeof authEndpoints>({
  login: ["POST", "/api/auth/login"],
  logout: ["POST", "/api/auth/logout"],
  setup: ["POST", "/api/auth/setup"],
  listTokens: ["GET", "/api/tokens"],
  createToken: ["POST", "/api/tokens"],
  revokeToken: ["DELETE", "/api/tokens/{id}"],
  createWorkspace: ["POST", "/api/workspaces"],
  health: ["GET", "/api/health"],
});
