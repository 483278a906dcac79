"use client";

import { useState } from "react";
import { useCan } from "@/components/layout/role";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, Spinner } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input } from "@/components/ui/field";
import { TimeAgo, selectClass } from "@/components/ui/format";
import { ROLES, type Role } from "@/lib/api/access";
import {
  useChangeRoleMutation,
  useCreateInvitationMutation,
  useInvitations,
  useMembers,
  useRemoveMemberMutation,
  useRevokeInvitationMutation,
} from "./hooks";

const ROLE_HINT: Record<Role, string> = {
  owner: "everything, plus members, roles and workspace settings",
  admin: "configures sources, destinations, audiences; reveals secrets; API tokens",
  viewer: "reads everything needed to debug; changes nothing, sees no secrets",
};

/** Members and their roles; owners change roles, remove members and invite by link (docs/management-api.md#invitations). */
export function MembersSettings({ me }: { me: string }) {
  const isOwner = useCan("owner");
  const members = useMembers();
  const changeRole = useChangeRoleMutation();
  const remove = useRemoveMemberMutation();

  return (
    <Card className="p-5">
      <h2 className="text-sm font-semibold text-slate-900">Members</h2>
      <ul className="mt-2 space-y-1 text-xs text-slate-500">
        {ROLES.map((r) => (
          <li key={r}>
            <span className="font-medium text-slate-700">{r}</span>: {ROLE_HINT[r]}
          </li>
        ))}
      </ul>
      {members.isPending ? (
        <Spinner />
      ) : members.isError ? (
        <ErrorNote error={members.error} />
      ) : (
        // A list rather than a table: on a phone each member wraps onto two lines (email first, then
        // role, joined and Remove) instead of squeezing the email into a letter-wide column.
        <ul className="mt-3 divide-y divide-slate-100 text-sm" aria-label="Members">
          {members.data.map((m) => (
            <li key={m.userId} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-2">
              <span className="min-w-0 flex-1 basis-56 break-words">
                <bdi>{m.email}</bdi> {m.email === me ? <Badge>you</Badge> : null}
              </span>
              {isOwner ? (
                <select
                  aria-label={`Role of ${m.email}`}
                  className={selectClass}
                  value={m.role}
                  disabled={changeRole.isPending}
                  onChange={(e) => changeRole.mutate({ userId: m.userId, role: e.target.value as Role })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              ) : (
                <span>{m.role}</span>
              )}
              <span className="whitespace-nowrap text-slate-500">
                joined <TimeAgo iso={m.createdAt} />
              </span>
              {isOwner && m.email !== me ? (
                <span className="ml-auto">
                  <ConfirmButton
                    label="Remove"
                    ariaLabel={`Remove ${m.email}`}
                    title={`Remove ${m.email}?`}
                    confirmLabel="Remove member"
                    tone="danger"
                    busy={remove.isPending}
                    error={remove.error}
                    onConfirm={(close) => remove.mutate(m.userId, { onSuccess: close })}
                  >
                    They lose access to this workspace at once; their sessions in it end.
                  </ConfirmButton>
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={changeRole.error} />
      {isOwner ? <Invitations /> : null}
    </Card>
  );
}

function Invitations() {
  const [role, setRole] = useState<Role>("viewer");
  const [email, setEmail] = useState("");
  const [link, setLink] = useState<{ url: string; emailed: boolean } | null>(null);
  const create = useCreateInvitationMutation();
  const invitations = useInvitations(true);
  const revoke = useRevokeInvitationMutation();
  const pending = (invitations.data ?? []).filter((i) => !i.acceptedAt && new Date(i.expiresAt) > new Date());

  return (
    <div className="mt-6 border-t border-slate-100 pt-4">
      <h3 className="text-sm font-semibold text-slate-900">Invite someone</h3>
      <form
        className="mt-2 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ role, ...(email ? { email } : {}) }, { onSuccess: (r) => setLink({ url: r.url, emailed: r.emailed }) });
        }}
      >
        <Field label="Role" htmlFor="invite-role">
          <select id="invite-role" className={selectClass} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <div className="min-w-48 flex-1">
          <Field label="Email (optional)" htmlFor="invite-email" hint="Emailed when the server has SMTP set up; the link works either way.">
            <Input id="invite-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
        </div>
        <Button type="submit" disabled={create.isPending}>
          Create invite link
        </Button>
      </form>
      <ErrorNote error={create.error} />
      {link ? (
        <div className="mt-3 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200">
          <p className="text-sm font-medium text-amber-900">
            Copy this link now and send it by any channel: it works once, for 3 days.{link.emailed ? " It was emailed too." : ""}
          </p>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <code data-testid="invite-link" className="min-w-0 rounded bg-white px-2 py-1 font-mono text-xs [overflow-wrap:anywhere]">
              {link.url}
            </code>
            <CopyButton value={link.url} label="Copy link" />
          </div>
        </div>
      ) : null}
      {pending.length > 0 ? (
        <ul className="mt-3 divide-y divide-slate-100 text-sm" aria-label="Open invitations">
          {pending.map((i) => (
            <li key={i.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span>
                {i.role} {i.email ? <bdi>· {i.email}</bdi> : null} · until{" "}
                <time dateTime={i.expiresAt}>{new Date(i.expiresAt).toLocaleString()}</time>
              </span>
              <Button
                variant="ghost"
                aria-label={`Withdraw the ${i.role} invitation`}
                onClick={() => revoke.mutate(i.id)}
                disabled={revoke.isPending}
              >
                Withdraw
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
