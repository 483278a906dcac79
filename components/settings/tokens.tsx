"use client";

import { focusWhenPresent } from "@/components/ui/focus";
import { useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, Spinner } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input } from "@/components/ui/field";
import { TimeAgo, selectClass } from "@/components/ui/format";
import type { TokenScope } from "@/lib/auth/contract";
import { ScrollBox } from "@/components/ui/scroll-box";
import { useCreateTokenMutation, useRevokeTokenMutation, useTokens } from "./hooks";

/** API tokens (admins and owners): read-only ones act as a viewer, full ones as an admin (docs/management-api.md#api-tokens). */
export function TokensSettings() {
  const tokens = useTokens();
  const [name, setName] = useState("");
  const [scope, setScope] = useState<TokenScope>("read");
  const [created, setCreated] = useState<string | null>(null);
  const create = useCreateTokenMutation();
  const revoke = useRevokeTokenMutation();
  const nameError = create.error instanceof ApiError ? create.error.fields?.name?.[0] : undefined;

  return (
    <section>
      <h2 className="mb-1 text-sm font-semibold text-slate-900">API tokens</h2>
      <p className="mb-3 text-sm text-slate-500">
        API tokens give automation access to this workspace's Management API (Authorization: Bearer &lt;token&gt;). A read-only token acts
        as a viewer; a full one as an admin.
      </p>
      <Card className="mb-4 p-5">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(
              { name, scope },
              {
                onSuccess: (t) => {
                  setCreated(t.token);
                  setName("");
                  // Focus goes to the token, the one thing to copy now.
                  focusWhenPresent(() => document.querySelector<HTMLElement>('[data-testid="new-token"]'));
                },
              },
            );
          }}
        >
          {/* basis-56: on a phone the name takes a line of its own rather than a sliver beside Access. */}
          <div className="min-w-0 flex-1 basis-56">
            <Field label="New API token" htmlFor="token-name" error={nameError}>
              <Input id="token-name" placeholder="e.g. CI pipeline" value={name} onChange={(e) => setName(e.target.value)} />
            </Field>
          </div>
          <Field label="Access" htmlFor="token-scope">
            <select id="token-scope" className={selectClass} value={scope} onChange={(e) => setScope(e.target.value as TokenScope)}>
              <option value="read">read-only</option>
              <option value="full">full</option>
            </select>
          </Field>
          <Button type="submit" disabled={create.isPending}>
            Create token
          </Button>
        </form>
        {created ? (
          <div className="mt-4 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200">
            <p className="text-sm font-medium text-amber-900">Copy this token now: it is shown only once.</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code data-testid="new-token" className="min-w-0 rounded bg-white px-2 py-1 font-mono text-xs [overflow-wrap:anywhere]">
                {created}
              </code>
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
          <ScrollBox label="API tokens, scrollable">
            <table className="w-full text-sm" aria-label="API tokens">
              <thead className="text-left text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-4 py-2">Name</th>
                  <th className="px-4 py-2">Token</th>
                  <th className="px-4 py-2">Access</th>
                  <th className="px-4 py-2">Created</th>
                  <th className="px-4 py-2">Last used</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {tokens.data.map((t) => (
                  <tr key={t.id}>
                    <td className="px-4 py-2 font-medium">
                      <bdi>{t.name}</bdi>
                    </td>
                    <td className="px-4 py-2 font-mono text-xs">{t.prefix}…</td>
                    <td className="px-4 py-2">{t.scope === "read" ? "read-only" : "full"}</td>
                    <td className="whitespace-nowrap px-4 py-2 text-slate-500">
                      <TimeAgo iso={t.createdAt} />
                    </td>
                    <td className="whitespace-nowrap px-4 py-2 text-slate-500">
                      {t.lastUsedAt ? <TimeAgo iso={t.lastUsedAt} /> : "never"}
                    </td>
                    <td className="px-4 py-2 text-right">
                      {t.revokedAt ? (
                        <Badge tone="red">Revoked</Badge>
                      ) : (
                        <ConfirmButton
                          label="Revoke"
                          ariaLabel={`Revoke ${t.name}`}
                          title={`Revoke "${t.name}"?`}
                          confirmLabel="Revoke token"
                          tone="danger"
                          busy={revoke.isPending}
                          error={revoke.error}
                          onConfirm={(close) => revoke.mutate(t.id, { onSuccess: close })}
                        >
                          Automation using this token gets 401 from now on. This cannot be undone.
                        </ConfirmButton>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        </Card>
      )}
    </section>
  );
}
