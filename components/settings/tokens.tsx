"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiTokenDto } from "@/lib/auth/tokens";
import { ApiError, api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input } from "@/components/ui/field";

const tokenKeys = { list: () => ["tokens", "list"] as const };

export function TokensSettings() {
  const qc = useQueryClient();
  const tokens = useQuery({
    queryKey: tokenKeys.list(),
    queryFn: ({ signal }) => api<{ tokens: ApiTokenDto[] }>("/api/tokens", { signal }).then((r) => r.tokens),
  });
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => api<ApiTokenDto & { token: string }>("/api/tokens", { method: "POST", body: { name } }),
    onSuccess: (t) => {
      setCreated(t.token);
      setName("");
      return qc.invalidateQueries({ queryKey: tokenKeys.list() });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/tokens/${id}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
  const nameError = create.error instanceof ApiError ? create.error.fields?.name?.[0] : undefined;

  return (
    <>
      <PageHeader title="Settings" description="API tokens give automation access to this workspace's Management API (Authorization: Bearer <token>)." />
      <Card className="mb-6 p-5">
        <form
          className="flex items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <div className="flex-1">
            <Field label="New API token" htmlFor="token-name" error={nameError}>
              <Input id="token-name" placeholder="e.g. CI pipeline" value={name} onChange={(e) => setName(e.target.value)} />
            </Field>
          </div>
          <Button type="submit" disabled={create.isPending}>Create token</Button>
        </form>
        {created ? (
          <div className="mt-4 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200">
            <p className="text-sm font-medium text-amber-900">Copy this token now: it is shown only once.</p>
            <div className="mt-2 flex items-center gap-2">
              <code data-testid="new-token" className="rounded bg-white px-2 py-1 font-mono text-xs">{created}</code>
              <CopyButton value={created} />
            </div>
          </div>
        ) : null}
      </Card>
      {tokens.isPending ? (
        <Spinner />
      ) : tokens.isError ? (
        <ErrorNote error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No API tokens">Create one to script Eventrail from CI or your own tools.</EmptyState>
      ) : (
        <Card>
          <table className="w-full text-sm">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr><th className="px-4 py-2">Name</th><th className="px-4 py-2">Token</th><th className="px-4 py-2">Created</th><th className="px-4 py-2">Last used</th><th /></tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {tokens.data.map((t) => (
                <tr key={t.id}>
                  <td className="px-4 py-2 font-medium">{t.name}</td>
                  <td className="px-4 py-2 font-mono text-xs">{t.prefix}…</td>
                  <td className="px-4 py-2 text-slate-500">{new Date(t.createdAt).toLocaleString()}</td>
                  <td className="px-4 py-2 text-slate-500">{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : "never"}</td>
                  <td className="px-4 py-2 text-right">
                    {t.revokedAt ? (
                      <Badge tone="red">Revoked</Badge>
                    ) : (
                      <Button variant="secondary" onClick={() => confirm(`Revoke "${t.name}"?`) && revoke.mutate(t.id)}>Revoke</Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </>
  );
}
