import type { Access, Endpoint } from "./endpoint";

/**
 * The role rule (docs/management-api.md#roles), pure so the route table and the dashboard agree:
 * viewer < admin < owner. A read-only API token acts as a viewer, a full one as an admin, the
 * operator's admin token as an owner.
 */
export type Role = "viewer" | "admin" | "owner";
export const ROLES = ["owner", "admin", "viewer"] as const satisfies readonly Role[];

const RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 };

/** Whether a caller with `role` may call an endpoint of `access` (public: anyone; operator: never by role). */
export function roleAllows(role: Role, access: Access): boolean {
  if (access === "public" || access === "account") return true;
  if (access === "operator") return false;
  return RANK[role] >= RANK[access];
}

/** What the caller is, for the 403 message: a member's role, or a token's scope. */
export type Caller = { role: Role; via: "session" | "read-token" | "full-token" | "operator" };

/** Why a caller may not call `ep`, in words for the 403; null when it may. */
export function accessRefusal(caller: Caller, ep: Pick<Endpoint, "access">): string | null {
  if (ep.access === "public") return null;
  if (ep.access === "operator") {
    return caller.via === "operator" ? null : "Only the operator's admin token (EVENTRAIL_ADMIN_TOKEN) may do this";
  }
  if (ep.access === "account") {
    return caller.via === "session" ? null : "This is about your own account: log in to the dashboard (API tokens have none)";
  }
  if (caller.via === "operator" || roleAllows(caller.role, ep.access)) return null;
  if (caller.via === "read-token") return "This API token is read-only: use a full token to change anything";
  if (caller.via === "full-token") return "API tokens act as an admin: only an owner, logged in, may do this";
  return ep.access === "owner"
    ? `Only an owner may do this (members, roles and workspace settings); you are ${article(caller.role)}`
    : `Viewers can look but not change anything: this needs the admin role; you are ${article(caller.role)}`;
}

const article = (role: Role) => (role === "admin" ? "an admin" : `a ${role}`);
