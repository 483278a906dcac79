"use client";
import { createContext, useContext } from "react";
import { roleAllows, type Role } from "@/lib/api/access";

/**
 * The member's role in the current workspace, from the dashboard layout's session. The dashboard
 * hides what the role may not do; the API refuses it anyway (docs/management-api.md#roles).
 */
const RoleContext = createContext<Role>("viewer");

export function RoleProvider({ role, children }: { role: Role; children: React.ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

export const useRole = (): Role => useContext(RoleContext);

/** Whether the member may do what needs `needed` (admin: configure; owner: members and settings). */
export function useCan(needed: "admin" | "owner"): boolean {
  return roleAllows(useRole(), needed);
}
