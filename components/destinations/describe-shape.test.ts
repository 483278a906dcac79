import { describe, expect, it } from "vitest";
import { describeShape } from "./describe-shape";

const plain = {
  method: "POST" as const,
  mapping: null,
  numbers: "canonical" as const,
  urls: ["https://a.example/h"],
  batch: null,
  rateLimit: { perSecond: null, concurrency: null },
  ordering: "none" as const,
  maxHoldMinutes: 15,
};

describe("the destination page's shape lines", () => {
  it("says what a default destination sends, each unset setting as None or Off", () => {
    expect(describeShape(plain)).toEqual({
      method: "POST",
      body: "Default body (the call as received)",
      urlTemplates: "None",
      numbers: "As JavaScript writes them (default)",
      batching: "Off: one event per request",
      rateLimit: "None",
      ordering: "Off: each message goes as soon as it can",
    });
  });

  it("names a mapping, templates, exact numbers, batching, both limits and ordering", () => {
    expect(
      describeShape({
        method: "PUT",
        mapping: { "@path": "$." },
        numbers: "exact",
        urls: ["https://a.example/users/{{userId}}", "https://b.example/h"],
        batch: { size: 100, maxWaitMs: 2000 },
        rateLimit: { perSecond: 10, concurrency: 2 },
        ordering: "perUser",
        maxHoldMinutes: 15,
      }),
    ).toEqual({
      method: "PUT",
      body: "Mapped with @path",
      urlTemplates: "1 of 2 URLs is filled from each event",
      numbers: "Exact digits (verify over the raw body)",
      batching: "Up to 100 events per request, sent within 2000 ms",
      rateLimit: "At most 10 per second, 2 at once",
      ordering: "Per user: a user's message waits for their earlier ones (at most 15 minutes)",
    });
  });

  it("lists a mapping's fields, the first four of many", () => {
    const mapping = { email: { "@path": "$.traits.email" }, plan: "pro" };
    expect(describeShape({ ...plain, mapping }).body).toBe("Mapped into 2 fields: email, plan");
    const many = Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((k) => [k, 1]));
    expect(describeShape({ ...plain, mapping: many }).body).toBe("Mapped into 6 fields: a, b, c, d and 2 more");
    expect(describeShape({ ...plain, urls: ["https://a.example/{{userId}}"] }).urlTemplates).toBe("The URL is filled from each event");
    expect(describeShape({ ...plain, rateLimit: { perSecond: null, concurrency: 3 } }).rateLimit).toBe("At most 3 at once");
  });
});
