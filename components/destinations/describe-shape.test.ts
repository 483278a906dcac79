import { describe, expect, it } from "vitest";
import { describeShape } from "./describe-shape";

describe("the destination page's shape lines", () => {
  it("says what a default destination sends", () => {
    expect(
      describeShape({
        method: "POST",
        mapping: null,
        numbers: "canonical",
        urls: ["https://a.example/h"],
        batch: null,
        rateLimit: { perSecond: null, concurrency: null },
      }),
    ).toEqual({
      request: "POST with the default body",
      numbers: "As JavaScript writes them (default)",
      batching: "One event per request",
      rateLimit: "No limit",
    });
  });

  it("names a mapping, templates, exact numbers, batching and both limits", () => {
    expect(
      describeShape({
        method: "PUT",
        mapping: { "@path": "$." },
        numbers: "exact",
        urls: ["https://a.example/users/{{userId}}", "https://b.example/h"],
        batch: { size: 100, maxWaitMs: 2000 },
        rateLimit: { perSecond: 10, concurrency: 2 },
      }),
    ).toEqual({
      request: "PUT with a mapped body, 1 URL filled from each event",
      numbers: "Exact digits (verify over the raw body)",
      batching: "Up to 100 events per request, sent within 2000 ms",
      rateLimit: "At most 10 per second, 2 at once",
    });
  });
});
