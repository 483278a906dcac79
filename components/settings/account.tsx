"use client";

import { useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { useCan } from "@/components/layout/role";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, Spinner } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { TimeAgo } from "@/components/ui/format";
import { useChangePasswordMutation, useMe, useRenameWorkspaceMutation, useSessions, useSignOutOthersMutation } from "./hooks";
import { deviceLabel } from "./user-agent";

/** The workspace's name: owners rename it (issue 15.13). */
export function WorkspaceSettings() {
  const me = useMe();
  const isOwner = useCan("owner");
  const rename = useRenameWorkspaceMutation();
  const [name, setName] = useState<string | null>(null);
  if (me.isPending) return <Spinner />;
  if (me.isError) return <ErrorNote error={me.error} />;
  const value = name ?? me.data.workspace.name;
  const nameError = rename.error instanceof ApiError ? rename.error.fields?.name?.[0] : undefined;
  return (
    <Card className="p-5">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate(value, { onSuccess: () => setName(null) });
        }}
      >
        <div className="min-w-48 flex-1">
          <Field
            label="Workspace name"
            htmlFor="workspace-name"
            error={nameError}
            hint={isOwner ? undefined : "Only an owner can rename it."}
          >
            <Input id="workspace-name" value={value} disabled={!isOwner} onChange={(e) => setName(e.target.value)} />
          </Field>
        </div>
        {isOwner ? (
          <Button type="submit" disabled={rename.isPending || value === me.data.workspace.name}>
            Rename
          </Button>
        ) : null}
      </form>
      {rename.isSuccess ? <p className="mt-2 text-sm text-green-700">Renamed.</p> : null}
    </Card>
  );
}

/** Your password and your sessions (issue 15.13): sign out everywhere else. */
export function AccountSettings() {
  const sessions = useSessions();
  const signOut = useSignOutOthersMutation();
  const change = useChangePasswordMutation();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const fields = change.error instanceof ApiError ? change.error.fields : undefined;

  return (
    <Card className="p-5">
      <h2 className="text-sm font-semibold text-slate-900">Your account</h2>
      <form
        className="mt-3 grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
        onSubmit={(e) => {
          e.preventDefault();
          change.mutate(
            { currentPassword: current, newPassword: next },
            {
              onSuccess: () => {
                setCurrent("");
                setNext("");
              },
            },
          );
        }}
      >
        <Field label="Current password" htmlFor="current-password" error={fields?.currentPassword?.[0]}>
          <Input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field label="New password" htmlFor="new-password" error={fields?.newPassword?.[0]}>
          <Input id="new-password" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </Field>
        <Button type="submit" disabled={change.isPending}>
          Change password
        </Button>
      </form>
      {change.isSuccess ? <p className="mt-2 text-sm text-green-700">Password changed; your other sessions were signed out.</p> : null}

      <div className="mt-6 flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-900">Your sessions</h3>
        <Button variant="secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending || (sessions.data?.length ?? 0) < 2}>
          Sign out other sessions
        </Button>
      </div>
      <ErrorNote error={signOut.error} />
      {sessions.isPending ? (
        <Spinner />
      ) : sessions.isError ? (
        <ErrorNote error={sessions.error} />
      ) : (
        <ul className="mt-2 divide-y divide-slate-100 text-sm" aria-label="Your sessions">
          {sessions.data.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-2 py-2">
              <span className="min-w-0 flex-1 break-words" title={s.userAgent ?? undefined}>
                {deviceLabel(s.userAgent)}
              </span>
              <span className="text-slate-500">{s.address ?? "—"}</span>
              <span className="text-slate-500">
                <TimeAgo iso={s.createdAt} />
              </span>
              {s.current ? <Badge tone="green">this session</Badge> : null}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
