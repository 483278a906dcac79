import { describe, expect, it } from "vitest";
import { allowListSchema, applyFieldLists, dropListSchema, storedFieldLists } from "./field-lists";

const body = {
  version: 1,
  type: "identify",
  userId: "u1",
  traits: { email: "a@example.com", plan: "pro", address: { city: "Berlin", street: "Main 1" } },
  timestamp: "2026-11-28T07:00:00.000Z",
  context: { ip: "203.0.113.9", library: { name: "analytics.js" } },
  messageId: "m1",
};

describe("applyFieldLists", () => {
  it("returns the body itself without lists, so it serialises byte for byte as before", () => {
    expect(applyFieldLists(body, null)).toBe(body);
    expect(applyFieldLists(body, { drop: [], allow: [] })).toBe(body);
  });
  it("sends a deletion notice whole: it names the user to erase", () => {
    const notice = { type: "delete", userId: "u1", timestamp: "2026-11-28T07:00:00.000Z" };
    expect(applyFieldLists(notice, { drop: ["userId"], allow: [] })).toBe(notice);
  });
  it("drops the named fields, nested ones included, and leaves the rest in order", () => {
    const out = applyFieldLists(body, { drop: ["context.ip", "traits.email", "traits.address.street", "nope.x"], allow: [] });
    expect(applyFieldLists(body, { drop: ["traits.address", "traits.address.city"], allow: [] }).traits).toEqual({
      email: "a@example.com",
      plan: "pro",
    });
    expect(JSON.stringify(out)).toBe(
      JSON.stringify({
        version: 1,
        type: "identify",
        userId: "u1",
        traits: { plan: "pro", address: { city: "Berlin" } },
        timestamp: "2026-11-28T07:00:00.000Z",
        context: { library: { name: "analytics.js" } },
        messageId: "m1",
      }),
    );
    // The stored body is not touched.
    expect(body.context.ip).toBe("203.0.113.9");
  });
  it("keeps only the allowed fields inside the objects the allow list names, then drops", () => {
    const out = applyFieldLists(body, { allow: ["traits.plan", "traits.address.city"], drop: ["context.ip"] });
    expect(out.traits).toEqual({ plan: "pro", address: { city: "Berlin" } });
    expect(out.context).toEqual({ library: { name: "analytics.js" } });
    expect(out.userId).toBe("u1");
  });
});

describe("the lists' schemas", () => {
  it("refuse what would break a body, and duplicates", () => {
    expect(dropListSchema.safeParse(["messageId"]).success).toBe(false);
    expect(dropListSchema.safeParse(["context..ip"]).success).toBe(false);
    expect(dropListSchema.safeParse(["context.ip", "context.ip"]).success).toBe(false);
    expect(allowListSchema.safeParse(["userId"]).success).toBe(false);
    expect(allowListSchema.safeParse(["properties"]).success).toBe(false);
    expect(allowListSchema.parse([" properties.plan "])).toEqual(["properties.plan"]);
  });
  it("read from a stored filter column, none when it has no lists", () => {
    expect(storedFieldLists(null)).toBeNull();
    expect(storedFieldLists({ types: ["track"], drop: [], allow: [] })).toBeNull();
    expect(storedFieldLists({ drop: ["context.ip", 3] })).toEqual({ drop: ["context.ip"], allow: [] });
  });
});
