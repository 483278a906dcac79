import { describe, expect, it } from "vitest";
import type { ErasedCounts } from "@/lib/deletions/contract";
import { erasedLabel } from "./describe";

const none: ErasedCounts = {
  messagesDeleted: 0,
  messagesRedacted: 0,
  deliveriesCancelled: 0,
  attemptsRedacted: 0,
  profiles: 0,
  identityLinks: 0,
  audienceMemberships: 0,
  sourceCalls: 0,
};

describe("deletion results in words", () => {
  it("says there was nothing stored rather than 'Yes' for a user Eventrail never saw", () => {
    expect(erasedLabel({ done: true, erased: none })).toBe("Nothing stored for this user");
  });
  it("says Yes when anything was erased, and Not yet before the job reaches the user", () => {
    expect(erasedLabel({ done: true, erased: { ...none, profiles: 1 } })).toBe("Yes");
    expect(erasedLabel({ done: true, erased: { ...none, sourceCalls: 2 } })).toBe("Yes");
    expect(erasedLabel({ done: false, erased: none })).toBe("Not yet");
  });
});
