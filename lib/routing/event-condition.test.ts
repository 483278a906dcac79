import { describe, expect, it } from "vitest";
import { conditionHolds, filterConditionSchema, valueAt, type FilterCondition } from "./event-condition";

const call = {
  type: "track",
  event: "Order Completed",
  userId: "u1",
  properties: { order: { total: 149.5, currency: "EUR", items: ["book", "pen"] }, coupon: "SUMMER-10", count: "12", plan: "Pro" },
  traits: { email: "a@example.com", age: 41 },
  context: { ip: "203.0.113.9", page: { path: "/checkout/pay" } },
};
const holds = (c: unknown) => conditionHolds(filterConditionSchema.parse(c), call);

describe("conditionHolds", () => {
  it("compares a nested numeric property as a number", () => {
    expect(holds({ field: "properties.order.total", op: "gt", value: 100 })).toBe(true);
    expect(holds({ field: "properties.order.total", op: "gt", value: 150 })).toBe(false);
    expect(holds({ field: "properties.order.total", op: "lte", value: "149.5" })).toBe(true);
    // A numeric string in the call compares numerically too: "12" > 9, which as texts it is not.
    expect(holds({ field: "properties.count", op: "gt", value: 9 })).toBe(true);
  });
  it("reads properties, traits, context and top-level fields by path", () => {
    expect(valueAt(call, "context.page.path")).toBe("/checkout/pay");
    expect(valueAt(call, "properties.order.missing.deeper")).toBeUndefined();
    expect(holds({ field: "event", op: "equals", value: "Order Completed" })).toBe(true);
    expect(holds({ field: "traits.age", op: "equals", value: "41" })).toBe(true);
    expect(holds({ field: "userId", op: "in", value: ["u0", "u1"] })).toBe(true);
    expect(holds({ field: "userId", op: "in", value: ["u2"] })).toBe(false);
  });
  it("has the audience operators' meaning for missing fields, texts and arrays", () => {
    expect(holds({ field: "properties.nope", op: "not_equals", value: "x" })).toBe(true);
    expect(holds({ field: "properties.nope", op: "equals", value: "x" })).toBe(false);
    expect(holds({ field: "properties.nope", op: "not_exists" })).toBe(true);
    expect(holds({ field: "traits.email", op: "exists" })).toBe(true);
    expect(holds({ field: "properties.plan", op: "contains", value: "pR" })).toBe(true);
    expect(holds({ field: "properties.order.items", op: "contains", value: "pen" })).toBe(true);
    expect(holds({ field: "properties.order.items", op: "contains", value: "pe" })).toBe(false);
    expect(holds({ field: "context.page.path", op: "starts_with", value: "/Checkout" })).toBe(true);
    expect(holds({ field: "properties.coupon", op: "starts_with", value: "WINTER" })).toBe(false);
    // A text compared with a text that is not a number orders as text.
    expect(holds({ field: "properties.coupon", op: "gt", value: "A" })).toBe(true);
  });
  it("combines with all and any", () => {
    const c: FilterCondition = {
      all: [
        { field: "properties.order.currency", op: "equals", value: "EUR" },
        {
          any: [
            { field: "properties.order.total", op: "gte", value: 1000 },
            { field: "traits.email", op: "contains", value: "@example.com" },
          ],
        },
      ],
    };
    expect(holds(c)).toBe(true);
    expect(
      holds({
        any: [
          { field: "properties.order.total", op: "lt", value: 10 },
          { field: "type", op: "equals", value: "page" },
        ],
      }),
    ).toBe(false);
  });
});

describe("filterConditionSchema", () => {
  const errors = (c: unknown) => {
    const r = filterConditionSchema.safeParse(c);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };
  it("points at what is wrong", () => {
    expect(errors({ field: "properties", op: "exists" })[0]).toContain("Name a field inside properties");
    expect(errors({ field: "body.x", op: "exists" })[0]).toContain("A path starts at one of");
    expect(errors({ field: "properties.a", op: "in", value: "x" })[0]).toContain("in compares with a list");
    expect(errors({ field: "properties.a", op: "equals", value: ["x"] })[0]).toContain("Only in takes a list");
    expect(errors({ field: "properties.a", op: "gt", value: true })[0]).toContain("not true/false");
    expect(errors({ field: "properties.a", op: "equals" })[0]).toBe("value: A value is required");
    expect(errors({ all: [{ field: "properties.a", op: "like", value: 1 }] })[0]).toContain("all.0.op");
    expect(errors({ what: 1 })[0]).toContain('A condition is {"all"');
    expect(errors({ all: [] })[0]).toContain("at least one condition");
  });
  it("keeps the audience limits on depth and size", () => {
    const leaf = { field: "properties.a", op: "exists" };
    expect(errors({ all: Array.from({ length: 31 }, () => leaf) })[0]).toContain("At most 30 conditions");
    expect(errors({ all: [{ all: [{ all: [{ all: [{ all: [leaf] }] }] }] }] })[0]).toContain("nest at most 4");
  });
});
