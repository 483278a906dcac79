import { describe, expect, it } from "vitest";
import { summary } from "./summary";

describe("summary of a captured request", () => {
  it("reads Eventrail's webhook bodies, whole or cut", () => {
    const body = JSON.stringify({
      version: 1,
      type: "track",
      userId: "u_1",
      event: "Order Completed",
      properties: { pad: "x".repeat(900) },
    });
    expect(summary(body)).toBe("track · Order Completed");
    expect(summary(body.slice(0, 512))).toBe("track · Order Completed");
    expect(summary('{"version":1,"type":"alias","Previous ID":"a","User ID":"u\\"2"')).toBe('alias · u\\"2');
  });

  it("says nothing about other bodies", () => {
    expect(summary("hello")).toBeNull();
    expect(summary('{"hello":"world"}')).toBeNull();
    expect(summary("\ufffd\ufffd")).toBeNull();
  });
});
