import type { DeletionDetailDto, DeletionResult, DeletionStatus, DeletionSummaryDto, NotificationDto } from "./schemas";

/** A deletion_requests row as lib/deletions/requests.ts selects it. */
export type RequestRow = {
  id: string;
  userIds: string[];
  status: DeletionStatus;
  error: string | null;
  result: DeletionResult | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

export function summarize(row: RequestRow): DeletionSummaryDto {
  const users = Object.values(row.result?.users ?? {});
  return {
    id: row.id,
    userIds: row.userIds,
    status: row.status,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    usersDone: users.length,
    affectedSourceCount: new Set(users.flatMap((u) => u.affectedSourceIds)).size,
    notificationCount: users.reduce((n, u) => n + u.notifications, 0),
  };
}

const NO_COUNTS = {
  messagesDeleted: 0,
  messagesRedacted: 0,
  deliveriesCancelled: 0,
  attemptsRedacted: 0,
  profiles: 0,
  identityLinks: 0,
  audienceMemberships: 0,
  sourceCalls: 0,
};

export function toDetail(
  row: RequestRow,
  joined: { sources: { id: string; name: string }[]; notifications: NotificationDto[]; totals: { state: string; n: number }[] },
): DeletionDetailDto {
  const results = row.result?.users ?? {};
  const names = new Map(joined.sources.map((s) => [s.id, s.name]));
  const affected = [...new Set(Object.values(results).flatMap((u) => u.affectedSourceIds))];
  const total = (state: string) => joined.totals.find((t) => t.state === state)?.n ?? 0;
  return {
    ...summarize(row),
    users: row.userIds.map((userId) => {
      const r = results[userId];
      return r
        ? { ...r, done: true }
        : { userId, done: false, affectedSourceIds: [], erased: NO_COUNTS, notifications: 0, finishedAt: null };
    }),
    // A source deleted since keeps its id here with no name.
    affectedSources: affected.map((id) => ({ id, name: names.get(id) ?? null })).sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "")),
    notifications: joined.notifications,
    notificationTotals: { pending: total("pending"), delivered: total("delivered"), failed: total("failed") },
  };
}
