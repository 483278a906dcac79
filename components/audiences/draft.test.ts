import { describe, expect, it } from "vitest";
import { audienceConditionSchema, type Condition } from "@/lib/audiences/condition";
import { fromCondition, newEvent, newGroup, newTrait, rootDraft, toCondition, type DraftGroup } from "./draft";

describe("builder drafts", () => {
  it("round-trips the product's example tree", () => {
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
    expect(toCondition(fromCondition(c))).toEqual(c);
  });

  it("sends numbers for ordering comparisons typed as numbers, text otherwise, no value for exists", () => {
    const g: DraftGroup = newGroup("any", [
      { ...newTrait(), trait: "age", op: "gte", value: " 30 " },
      { ...newTrait(), trait: "signed_up", op: "lt", value: "2026-01-01" },
      { ...newTrait(), trait: "zip", op: "equals", value: "01234" },
      { ...newTrait(), trait: "vip", op: "exists", value: "leftover" },
    ]);
    expect(toCondition(g)).toEqual({
      any: [
        { trait: "age", op: "gte", value: 30 },
        { trait: "signed_up", op: "lt", value: "2026-01-01" },
        { trait: "zip", op: "equals", value: "01234" },
        { trait: "vip", op: "exists" },
      ],
    });
  });

  it("leaves incomplete rows for the schema to reject, field by field", () => {
    const g = newGroup("all", [newTrait(), { ...newEvent(), atLeast: "two" }]);
    const r = audienceConditionSchema.safeParse(toCondition(g));
    expect(r.success).toBe(false);
    const paths = r.success ? [] : r.error.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["all.0.trait", "all.1.event", "all.1.atLeast"]));
  });

  it("wraps a single saved condition in a root group", () => {
    const root = rootDraft({ trait: "plan", op: "equals", value: "pro" });
    expect(root.kind).toBe("group");
    expect(toCondition(root)).toEqual({ all: [{ trait: "plan", op: "equals", value: "pro" }] });
  });
});
