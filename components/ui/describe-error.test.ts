import { describe, expect, it } from "vitest";
import { describeErrorText, describeFailure, statusText } from "./describe-error";

describe("delivery errors in words", () => {
  it("writes the endpoint's answer first, as a status and its phrase", () => {
    expect(statusText(500)).toBe("500 Internal Server Error");
    expect(statusText(599)).toBe("599");
    expect(describeFailure({ responseStatus: 500, errorKind: "http", errorText: "HTTP 500" })).toBe("500 Internal Server Error");
    expect(describeFailure({ responseStatus: 302, errorKind: "http", errorText: "HTTP 302 (redirects are not followed)" })).toBe(
      "302 Found (redirects are not followed)",
    );
  });

  it("names the kind of failure in words when there was no answer", () => {
    expect(describeFailure({ responseStatus: null, errorKind: "timeout", errorText: "timed out after 5000 ms" })).toBe(
      "No answer in time: timed out after 5000 ms",
    );
    expect(describeFailure({ errorKind: "ssrf", errorText: null })).toBe("Address not allowed (private network)");
  });

  it("rewrites a stored last error, leaving other texts as they are", () => {
    expect(describeErrorText("HTTP 503")).toBe("503 Service Unavailable");
    expect(describeErrorText("destination is disabled")).toBe("destination is disabled");
    expect(describeErrorText("https://b.example.com/users/u-1: HTTP 500")).toBe(
      "https://b.example.com/users/u-1: 500 Internal Server Error",
    );
  });
});
