import { describe, expect, it } from "vitest";
import { createDeletionSchema, parseUserIdList } from "./contract";

const fields = (raw: unknown) => {
  const r = createDeletionSchema.safeParse(raw);
  if (r.success) return undefined;
  return r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("createDeletionSchema", () => {
  it("accepts userIds and drops duplicates, keeping first-seen order and exact values", () => {
    expect(createDeletionSchema.parse({ userIds: ["b", "a", "b", " a "] })).toEqual({ userIds: ["b", "a", " a "] });
  });

  it("refuses an empty list, a missing list and more than 1000 ids", () => {
    expect(fields({ userIds: [] })).toEqual(["userIds: Name at least one userId"]);
    expect(fields({})?.[0]).toMatch(/^userIds: /);
    expect(fields({ userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) })).toEqual(["userIds: At most 1000 userIds per request"]);
    expect(createDeletionSchema.parse({ userIds: Array.from({ length: 1000 }, (_, i) => `u${i}`) }).userIds).toHaveLength(1000);
  });

  it("points at the bad entry: empty, blank, too long, not a string", () => {
    expect(fields({ userIds: ["ok", ""] })).toEqual(["userIds.1: A userId cannot be empty"]);
    expect(fields({ userIds: ["  "] })).toEqual(["userIds.0: A userId cannot be empty"]);
    expect(fields({ userIds: ["x".repeat(501)] })).toEqual(["userIds.0: A userId has at most 500 characters"]);
    expect(fields({ userIds: [42] })).toEqual(["userIds.0: Each userId must be a string"]);
  });

  it("refuses unknown fields", () => {
    expect(fields({ userIds: ["a"], userId: "a" })).toBeDefined();
  });
});

describe("parseUserIdList", () => {
  it("splits on lines and commas, trims, drops blanks and duplicates", () => {
    expect(parseUserIdList("user-1\nuser-2, user-3\r\n\n ,user-1 ,\tuser-4\t")).toEqual(["user-1", "user-2", "user-3", "user-4"]);
  });

  it("gives nothing for blank input", () => {
    expect(parseUserIdList("  \n , \n")).toEqual([]);
  });
});
