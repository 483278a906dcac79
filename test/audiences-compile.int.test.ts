// The compiled conditions run against real Postgres: what each operator matches, event windows,
// property filters, anonymous calls joined by identify/alias, sources, and AND/OR nesting.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "../lib/platform/db";
import { identify, insertSource, insertWorkspace, storeCalls, track, useTestDatabase } from "./harness/audience-fixtures";
import { compileAudienceQuery } from "../lib/audiences/compile";
import { audienceConditionSchema, type Condition } from "../lib/audiences/condition";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
let ws: string;
let src: string;
let otherSrc: string;

beforeAll(async () => {
  db = await useTestDatabase();
  ({ workspaceId: ws, sourceId: src } = await insertWorkspace());
  otherSrc = await insertSource(ws);
  await storeCalls(ws, src, [
    identify("alice", { plan: "pro", age: 34, email: "alice@Example.com", tags: ["beta", "eu"], vip: true, signed_up: "2026-01-15" }),
    identify("bob", { plan: "free", age: "29", email: "bob@other.org", vip: null }),
    identify("carol", { plan: "Pro", age: 41.5, tags: ["us"] }),
    identify("dave", {}),
    // Orders: alice 3 big ones, bob 3 of which one is old, carol 2, dave's pre-login orders are anonymous.
    track("alice", "Order Completed", { total: 150 }),
    track("alice", "Order Completed", { total: 120 }),
    track("alice", "Order Completed", { total: "101" }),
    track("bob", "Order Completed", { total: 500 }),
    track("bob", "Order Completed", { total: 500 }),
    track("bob", "Order Completed", { total: 500 }, { daysAgo: 40 }),
    track("carol", "Order Completed", { total: 50 }),
    track("carol", "Order Completed", { total: 300 }),
    track(undefined, "Order Completed", { total: 200 }, { anonymousId: "anon-d1" }),
    track(undefined, "Order Completed", { total: 200 }, { anonymousId: "anon-d2" }),
    track("dave", "Order Completed", { total: 200 }),
    { type: "identify", userId: "dave", anonymousId: "anon-d1", traits: {} },
    { type: "alias", userId: "dave", previousId: "anon-d2" },
    // An anonymous visitor never identified counts for nobody.
    track(undefined, "Order Completed", { total: 999 }, { anonymousId: "stranger" }),
    track(undefined, "Order Completed", { total: 999 }, { anonymousId: "stranger" }),
    track(undefined, "Order Completed", { total: 999 }, { anonymousId: "stranger" }),
  ]);
  // Calls in another source of the workspace do not count for an audience drawing from `src`.
  await storeCalls(ws, otherSrc, [track("carol", "Order Completed", { total: 300 }), track("carol", "Order Completed", { total: 300 })]);
  // Another workspace's identical user is invisible.
  const other = await insertWorkspace();
  await storeCalls(other.workspaceId, other.sourceId, [identify("erin", { plan: "pro" })]);
});
afterAll(() => db?.close());

async function members(c: Condition, sourceIds = [src]): Promise<string[]> {
  const q = compileAudienceQuery(audienceConditionSchema.parse(c), { workspaceId: ws, sourceIds });
  const { rows } = await pool().query<{ user_id: string }>(q.text, q.values);
  return rows.map((r) => r.user_id).sort();
}

describe("trait operators against Postgres", () => {
  it.each<[string, Condition, string[]]>([
    ["equals text (case-sensitive)", { trait: "plan", op: "equals", value: "pro" }, ["alice"]],
    ["equals number matches a numeric string", { trait: "age", op: "equals", value: 29 }, ["bob"]],
    ["equals a numeric string matches a number", { trait: "age", op: "equals", value: "34" }, ["alice"]],
    ["equals true", { trait: "vip", op: "equals", value: true }, ["alice"]],
    ["not_equals includes users without the trait", { trait: "plan", op: "not_equals", value: "pro" }, ["bob", "carol", "dave"]],
    ["exists ignores null", { trait: "vip", op: "exists" }, ["alice"]],
    ["not_exists counts null as missing", { trait: "vip", op: "not_exists" }, ["bob", "carol", "dave"]],
    ["contains a substring, case-insensitively", { trait: "email", op: "contains", value: "@example.COM" }, ["alice"]],
    ["contains an array element", { trait: "tags", op: "contains", value: "eu" }, ["alice"]],
    ["gt numeric (numbers and numeric strings)", { trait: "age", op: "gt", value: 30 }, ["alice", "carol"]],
    ["gte", { trait: "age", op: "gte", value: 34 }, ["alice", "carol"]],
    ["lt", { trait: "age", op: "lt", value: 34 }, ["bob"]],
    ["lte", { trait: "age", op: "lte", value: "34" }, ["alice", "bob"]],
    ["gt on text compares text (ISO dates)", { trait: "signed_up", op: "gt", value: "2026-01-01" }, ["alice"]],
    ["a non-numeric trait never matches a numeric comparison", { trait: "email", op: "gt", value: 0 }, []],
  ])("%s", async (_name, c, expected) => {
    expect(await members(c)).toEqual(expected);
  });
});

describe("event conditions against Postgres", () => {
  it("counts calls in the window: old ones drop out", async () => {
    expect(await members({ event: "Order Completed", atLeast: 3, withinDays: 30 })).toEqual(["alice", "dave"]);
    expect(await members({ event: "Order Completed", atLeast: 3, withinDays: 60 })).toEqual(["alice", "bob", "dave"]);
  });

  it("joins anonymous calls to the user identify and alias linked them to", async () => {
    // dave made 1 call as himself, 1 as anon-d1 (identify), 1 as anon-d2 (alias).
    expect(
      await members({ event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "equals", value: 200 }] }),
    ).toEqual(["dave"]);
  });

  it("applies property filters before counting", async () => {
    expect(
      await members({ event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] }),
    ).toEqual(["alice", "dave"]);
    expect(
      await members({ event: "Order Completed", atLeast: 1, withinDays: 30, where: [{ property: "total", op: "lt", value: 100 }] }),
    ).toEqual(["carol"]);
  });

  it("only counts the audience's sources", async () => {
    expect(await members({ event: "Order Completed", atLeast: 3, withinDays: 30 }, [otherSrc])).toEqual([]);
    expect(await members({ event: "Order Completed", atLeast: 2, withinDays: 30 }, [otherSrc])).toEqual(["carol"]);
    // carol: 2 orders in each source, 4 across both.
    expect(await members({ event: "Order Completed", atLeast: 4, withinDays: 30 }, [src, otherSrc])).toEqual(["carol"]);
    expect(await members({ event: "Order Completed", atLeast: 3, withinDays: 30 }, [src, otherSrc])).toEqual(["alice", "carol", "dave"]);
  });
});

describe("groups against Postgres", () => {
  it("evaluates the product's example tree", async () => {
    const c: Condition = {
      all: [
        { trait: "plan", op: "equals", value: "pro" },
        {
          any: [
            { event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] },
            { trait: "vip", op: "exists" },
          ],
        },
      ],
    };
    expect(await members(c)).toEqual(["alice"]);
  });

  it("OR of traits and events, AND of traits", async () => {
    expect(
      await members({
        any: [
          { trait: "plan", op: "equals", value: "free" },
          { event: "Order Completed", atLeast: 3, withinDays: 30 },
        ],
      }),
    ).toEqual(["alice", "bob", "dave"]);
    expect(
      await members({
        all: [
          { trait: "age", op: "gt", value: 20 },
          { trait: "tags", op: "exists" },
        ],
      }),
    ).toEqual(["alice", "carol"]);
  });

  it("never returns a user twice", async () => {
    const rows = await members({
      any: [
        { trait: "age", op: "exists" },
        { trait: "plan", op: "exists" },
        { event: "Order Completed", atLeast: 1, withinDays: 60 },
      ],
    });
    expect(rows).toEqual(["alice", "bob", "carol", "dave"]);
  });
});
