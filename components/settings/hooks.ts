import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { authEndpoints } from "@/lib/auth/contract";
import { call } from "@/components/data/api-client";

/** The workspace's API tokens (/api/tokens). */
export const tokenKeys = {
  all: ["tokens"] as const,
  list: () => [...tokenKeys.all, "list"] as const,
};

export const fetchTokens = (signal?: AbortSignal) => call(authEndpoints.listTokens, { signal }).then((r) => r.tokens);

export function useTokens() {
  return useQuery({ queryKey: tokenKeys.list(), queryFn: ({ signal }) => fetchTokens(signal) });
}

/** The answer carries the token itself, shown once and never again. */
export function useCreateTokenMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(authEndpoints.createToken, { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}

export function useRevokeTokenMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(authEndpoints.revokeToken, { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}
