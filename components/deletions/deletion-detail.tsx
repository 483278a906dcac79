"use client";

import Link from "next/link";
import type { DeletionDetailDto } from "@/lib/deletions/contract";
import { Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { ScrollBox } from "@/components/ui/scroll-box";
import { ShortValue } from "@/components/ui/short-url";
import { isActive, useDeletion } from "./hooks";
import { erasedLabel } from "./describe";
import { StatusBadge } from "./status-badge";
import { describeErrorText, statusText } from "@/components/ui/describe-error";

const th = "px-4 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500";
const td = "px-4 py-2 text-sm text-slate-700";
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

export function DeletionDetail({ id }: { id: string }) {
  const deletion = useDeletion(id);
  if (deletion.isPending) return <Spinner />;
  if (deletion.isError) return <ErrorNote error={deletion.error} />;
  const d = deletion.data;

  return (
    <>
      <PageHeader
        title="Deletion request"
        description={
          <>
            <Link href="/deletions" className="text-indigo-700 underline">
              Deletions
            </Link>{" "}
            · created {when(d.createdAt)}
            {d.finishedAt ? ` · finished ${when(d.finishedAt)}` : ""}
          </>
        }
        actions={<StatusBadge status={d.status} />}
      />
      {d.error ? (
        <div className="mb-6">
          <ErrorNote error={d.error} />
        </div>
      ) : null}
      <Users d={d} />
      <Card className="mb-6 p-4">
        <h2 className="text-sm font-semibold text-slate-900">Affected sources</h2>
        {d.affectedSources.length === 0 ? (
          <p className="mt-1 text-sm text-slate-500">
            {isActive(d.status) ? "Not known yet." : "None: no source held data for these users."}
          </p>
        ) : (
          <ul className="mt-2 flex flex-wrap gap-2" aria-label="Affected sources">
            {d.affectedSources.map((s) => (
              <li key={s.id} className="rounded-md bg-slate-100 px-2 py-1 text-sm text-slate-700">
                {s.name ? (
                  <Link href={`/sources/${s.id}`}>
                    <bdi>{s.name}</bdi>
                  </Link>
                ) : (
                  <span className="font-mono">{s.id} (deleted)</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Notifications d={d} />
    </>
  );
}

function Users({ d }: { d: DeletionDetailDto }) {
  return (
    <Card className="mb-6">
      <ScrollBox label="Users, scrollable">
        <table className="min-w-full divide-y divide-slate-100" aria-label="Users">
          <thead>
            <tr>
              <th className={th}>User</th>
              <th className={th}>Erased</th>
              <th className={th}>Messages</th>
              <th className={th}>Profile</th>
              <th className={th}>Memberships</th>
              <th className={th}>Notifications</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {d.users.map((u) => (
              <tr key={u.userId}>
                <td className={`${td} font-mono`}>
                  <bdi>{u.userId}</bdi>
                </td>
                <td className={td}>{erasedLabel(u)}</td>
                <td className={td} title="deleted + kept without data for the request log">
                  {u.done ? u.erased.messagesDeleted + u.erased.messagesRedacted : "—"}
                </td>
                <td className={td}>{u.done ? (u.erased.profiles > 0 ? "Erased" : "None") : "—"}</td>
                <td className={td}>{u.done ? u.erased.audienceMemberships : "—"}</td>
                <td className={td}>{u.done ? u.notifications : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </Card>
  );
}

function Notifications({ d }: { d: DeletionDetailDto }) {
  const t = d.notificationTotals;
  const total = t.pending + t.delivered + t.failed;
  return (
    <>
      <h2 className="mb-2 text-sm font-semibold text-slate-900">
        Delete notifications{total > 0 ? ` · ${t.delivered} delivered, ${t.pending} pending, ${t.failed} failed` : ""}
      </h2>
      {d.notifications.length === 0 ? (
        <EmptyState title={isActive(d.status) ? "Not sent yet" : "No notifications sent"}>
          A notification goes to each enabled Webhooks destination connected to an affected source.
        </EmptyState>
      ) : (
        <Card>
          <ScrollBox label="Delete notifications, scrollable">
            <table className="min-w-full divide-y divide-slate-100" aria-label="Delete notifications">
              <thead>
                <tr>
                  <th className={th}>User</th>
                  <th className={th}>Source</th>
                  <th className={th}>Destination</th>
                  <th className={th}>State</th>
                  <th className={th}>Attempts</th>
                  <th className={th}>Last result</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {d.notifications.map((n) => (
                  <tr key={n.deliveryId}>
                    <td className={`${td} font-mono`}>
                      <bdi>{n.userId}</bdi>
                    </td>
                    <td className={td}>
                      <bdi>{n.source.name ?? "(deleted source)"}</bdi>
                    </td>
                    <td className={td}>
                      <bdi>{n.destination.name ?? "(deleted destination)"}</bdi>
                    </td>
                    <td className={td}>
                      <StatusBadge status={n.state} />
                    </td>
                    <td className={td}>
                      {n.attemptCount > 0 ? (
                        <Link
                          href={`/log?${new URLSearchParams({ messageId: n.messageId, destinationId: n.destination.id })}`}
                          className="text-indigo-600 hover:underline"
                          title="See the attempts in the request log"
                        >
                          {n.attemptCount}
                        </Link>
                      ) : (
                        0
                      )}
                    </td>
                    <td className={`${td} max-w-xs`}>
                      {n.deliveredAt ? (
                        `Delivered ${when(n.deliveredAt)}`
                      ) : n.lastError ? (
                        <LastError text={n.lastError} />
                      ) : n.lastStatus ? (
                        statusText(n.lastStatus)
                      ) : (
                        "—"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          {d.notifications.length < total ? (
            <p className="px-4 py-2 text-xs text-slate-500">
              Showing the first {d.notifications.length} of {total}.
            </p>
          ) : null}
        </Card>
      )}
    </>
  );
}

/**
 * A failed notice's last error, the answer first: a destination with several URLs names the URL
 * (the one it was sent to, a template filled) before it, shown under the answer, cut in the middle.
 */
function LastError({ text }: { text: string }) {
  const words = describeErrorText(text);
  const named = /^(https?:\/\/\S+): (.+)$/s.exec(words);
  if (!named) return <span className="block truncate">{words}</span>;
  return (
    <>
      <span className="block truncate">{named[2]}</span>
      <ShortValue value={named[1]} max={40} className="block font-mono text-xs text-slate-500" />
    </>
  );
}
