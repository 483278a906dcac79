import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { memberRoutes } from "@/lib/members/routes";
import { call } from "@/components/data/api-client";
import type { Role } from "@/lib/api/access";
import type { CreateInvitationInput } from "@/lib/members/contract";

/** Members and invitations of the workspace (/api/members, /api/invitations). */
export const memberKeys = {
  all: ["members"] as const,
  list: () => [...memberKeys.all, "list"] as const,
  invitations: () => [...memberKeys.all, "invitations"] as const,
};

export function useMembers() {
  return useQuery({ queryKey: memberKeys.list(), queryFn: ({ signal }) => call(memberRoutes.list, { signal }).then((r) => r.members) });
}

export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: memberKeys.invitations(),
    queryFn: ({ signal }) => call(memberRoutes.listInvitations, { signal }).then((r) => r.invitations),
    enabled,
  });
}

/** The answer carries the link, shown once. */
export function useCreateInvitationMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<CreateInvitationInput> & { role: Role }) => call(memberRoutes.createInvitation, { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.invitations() }),
  });
}

export function useRevokeInvitationMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(memberRoutes.revokeInvitation, { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.invitations() }),
  });
}

export function useChangeRoleMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { userId: string; role: Role }) => call(memberRoutes.changeRole, { params: { id: v.userId }, body: { role: v.role } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.list() }),
  });
}

export function useRemoveMemberMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => call(memberRoutes.remove, { params: { id: userId } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.list() }),
  });
}
