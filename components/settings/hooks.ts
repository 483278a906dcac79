import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { accountRoutes, authRoutes } from "@/lib/auth/routes";
import type { ChangePasswordInput, TokenScope } from "@/lib/auth/contract";
import { call } from "@/components/data/api-client";

/** The workspace's API tokens (/api/tokens). */
export const tokenKeys = {
  all: ["tokens"] as const,
  list: () => [...tokenKeys.all, "list"] as const,
};

export const fetchTokens = (signal?: AbortSignal) => call(authRoutes.listTokens, { signal }).then((r) => r.tokens);

export function useTokens() {
  return useQuery({ queryKey: tokenKeys.list(), queryFn: ({ signal }) => fetchTokens(signal) });
}

/** The answer carries the token itself, shown once and never again. */
export function useCreateTokenMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { name: string; scope: TokenScope }) => call(authRoutes.createToken, { body: v }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}

export function useRevokeTokenMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(authRoutes.revokeToken, { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}

/** You, your sessions and your workspaces (/api/me…), and the workspace's name (/api/workspace). */
export const accountKeys = {
  all: ["account"] as const,
  me: () => [...accountKeys.all, "me"] as const,
  sessions: () => [...accountKeys.all, "sessions"] as const,
};

export function useMe() {
  return useQuery({ queryKey: accountKeys.me(), queryFn: ({ signal }) => call(accountRoutes.me, { signal }) });
}

export function useSessions() {
  return useQuery({
    queryKey: accountKeys.sessions(),
    queryFn: ({ signal }) => call(accountRoutes.sessions, { signal }).then((r) => r.sessions),
  });
}

export function useSignOutOthersMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => call(accountRoutes.signOutOthers),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.sessions() }),
  });
}

export function useChangePasswordMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordInput) => call(accountRoutes.changePassword, { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.sessions() }),
  });
}

export function useRenameWorkspaceMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(accountRoutes.renameWorkspace, { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.me() }),
  });
}

/** Switching or creating a workspace changes everything shown: the page reloads in the new one. */
export function useSwitchWorkspaceMutation() {
  return useMutation({ mutationFn: (workspaceId: string) => call(accountRoutes.switchWorkspace, { body: { workspaceId } }) });
}

export function useCreateWorkspaceMutation() {
  return useMutation({ mutationFn: (name: string) => call(accountRoutes.createOwnWorkspace, { body: { name } }) });
}
