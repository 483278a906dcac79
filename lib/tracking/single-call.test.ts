import { describe, expect, it } from "vitest";
import { STATUS_BY_CODE } from "../platform/errors";
import { singleCallRefusal } from "./single-call";

const rejected = [{ reason: "track requires an event name" }];

describe("singleCallRefusal (issue 13.3: a rejection the client sees)", () => {
  it.each(["track", "identify", "page", "screen", "group", "alias"] as const)(
    "/v1/%s with its message rejected → 400 invalid_message",
    (endpoint) => {
      const refusal = singleCallRefusal(endpoint, rejected);
      expect(refusal).toMatchObject({ code: "invalid_message", message: "The message was rejected: track requires an event name" });
      expect(STATUS_BY_CODE[refusal!.code]).toBe(400);
    },
  );

  it.each(["batch", "import"] as const)("/v1/%s keeps accepting message by message: no refusal", (endpoint) => {
    expect(singleCallRefusal(endpoint, rejected)).toBeNull();
  });

  it("an accepted single message is not refused", () => {
    expect(singleCallRefusal("track", [])).toBeNull();
  });
});
