import "server-only";
import type { DeletionRequest } from "../platform/generated/prisma/client";
import type { DeletionDetailDto, DeletionResult, DeletionStatus, DeletionSummaryDto, NotificationDto } from "./contract";

/** A deletion_requests row as lib/deletions/requests.ts selects it (camelCase aliases of the Prisma model's fields). */
export type RequestRow = Omit<DeletionRequest, "workspaceId">;

/** `result` is only ever written by the deletion job (lib/deletions/run.ts), in this shape. */
export const resultOf = (row: RequestRow) => row.result as DeletionResult | null;

export function summarize(row: RequestRow): DeletionSummaryDto {
  const users = Object.values(resultOf(row)?.users ?? {});
  return {
    id: row.id,
    userIds: row.userIds,
    // The table's CHECK constraint holds status to the contract's list.
    status: row.status as DeletionStatus,
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
  capturedRequests: 0,
};

export function toDetail(
  row: RequestRow,
  joined: { sources: { id: string; name: string }[]; notifications: NotificationDto[]; totals: { state: string; n: number }[] },
): DeletionDetailDto {
  const results = resultOf(row)?.users ?? {};
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
