import { describe, expect, it } from "vitest";
import { deleteNotificationMessageId, deleteNotificationPayload, destinationsBySource } from "./notifications";

describe("deleteNotificationMessageId", () => {
  const base = { requestId: "6f1c2a52-5b0e-4a53-9a8a-2a1f4c1e0b11", sourceId: "1b7a9e34-3a4c-4d4e-8c4a-0d5f4e3c2b1a", userId: "user-1" };

  it("is the same for the same request, source and user (re-runs insert nothing new)", () => {
    expect(deleteNotificationMessageId(base)).toBe(deleteNotificationMessageId({ ...base }));
    expect(deleteNotificationMessageId(base)).toMatch(/^delete-[0-9a-f]{32}$/);
  });

  it("differs when any of them differs, including ids that would collide if concatenated", () => {
    const id = deleteNotificationMessageId(base);
    expect(deleteNotificationMessageId({ ...base, requestId: "7f1c2a52-5b0e-4a53-9a8a-2a1f4c1e0b11" })).not.toBe(id);
    expect(deleteNotificationMessageId({ ...base, sourceId: "2b7a9e34-3a4c-4d4e-8c4a-0d5f4e3c2b1a" })).not.toBe(id);
    expect(deleteNotificationMessageId({ ...base, userId: "user-2" })).not.toBe(id);
    expect(deleteNotificationMessageId({ requestId: "r", sourceId: "s", userId: "user-1" })).not.toBe(
      deleteNotificationMessageId({ requestId: "r", sourceId: "su", userId: "ser-1" }),
    );
  });
});

describe("deleteNotificationPayload", () => {
  it("has the delete shape: type, userId, timestamp (plus the stored messageId), no version", () => {
    const p = deleteNotificationPayload({ userId: "u", timestamp: "2026-01-02T03:04:05.678Z", messageId: "delete-x" });
    expect(p).toEqual({ type: "delete", userId: "u", timestamp: "2026-01-02T03:04:05.678Z", messageId: "delete-x" });
    expect(p).not.toHaveProperty("version");
  });
});

describe("destinationsBySource", () => {
  it("lists each source's destinations once; a destination on two sources appears under both", () => {
    const map = destinationsBySource([
      { sourceId: "s1", destinationId: "d1" },
      { sourceId: "s1", destinationId: "d2" },
      { sourceId: "s2", destinationId: "d2" },
      { sourceId: "s1", destinationId: "d1" },
    ]);
    expect([...map.entries()]).toEqual([
      ["s1", ["d1", "d2"]],
      ["s2", ["d2"]],
    ]);
  });
});
