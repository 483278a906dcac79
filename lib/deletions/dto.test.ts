import { describe, expect, it } from "vitest";
import { summarize, toDetail, type RequestRow } from "./dto";
import type { UserResult } from "./contract";

const erased = {
  messagesDeleted: 2,
  messagesRedacted: 1,
  deliveriesCancelled: 0,
  attemptsRedacted: 1,
  profiles: 1,
  identityLinks: 1,
  audienceMemberships: 1,
  sourceCalls: 0,
};
const user = (userId: string, sources: string[], notifications: number): UserResult => ({
  userId,
  affectedSourceIds: sources,
  erased,
  notifications,
  finishedAt: "2026-01-01T00:00:01.000Z",
});
const row = (over: Partial<RequestRow> = {}): RequestRow => ({
  id: "r1",
  userIds: ["u1", "u2", "u3"],
  status: "running",
  error: null,
  result: { users: { u1: user("u1", ["s1", "s2"], 3), u2: user("u2", ["s2"], 1) } },
  createdAt: new Date("2026-01-01T00:00:00.000Z"),
  startedAt: new Date("2026-01-01T00:00:00.500Z"),
  finishedAt: null,
  ...over,
});

describe("summarize", () => {
  it("counts users done, distinct affected sources and notifications", () => {
    expect(summarize(row())).toEqual({
      id: "r1",
      userIds: ["u1", "u2", "u3"],
      status: "running",
      error: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      startedAt: "2026-01-01T00:00:00.500Z",
      finishedAt: null,
      usersDone: 2,
      affectedSourceCount: 2,
      notificationCount: 4,
    });
  });

  it("reads a request the job has not started as nothing done", () => {
    const s = summarize(row({ status: "pending", result: null, startedAt: null }));
    expect(s).toMatchObject({ status: "pending", usersDone: 0, affectedSourceCount: 0, notificationCount: 0, startedAt: null });
  });
});

describe("toDetail", () => {
  it("lists users in request order, marks those not reached yet, names sources and totals notifications", () => {
    const d = toDetail(row(), {
      sources: [{ id: "s2", name: "Alpha" }],
      notifications: [],
      totals: [
        { state: "delivered", n: 3 },
        { state: "failed", n: 1 },
      ],
    });
    expect(d.users.map((u) => [u.userId, u.done, u.notifications])).toEqual([
      ["u1", true, 3],
      ["u2", true, 1],
      ["u3", false, 0],
    ]);
    expect(d.users[2].erased.messagesDeleted).toBe(0);
    // s1 was deleted since: kept, without a name.
    expect(d.affectedSources).toEqual([
      { id: "s1", name: null },
      { id: "s2", name: "Alpha" },
    ]);
    expect(d.notificationTotals).toEqual({ pending: 0, delivered: 3, failed: 1 });
  });
});
