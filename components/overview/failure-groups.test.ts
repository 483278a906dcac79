import { describe, expect, it } from "vitest";
import { groupFilter } from "./failure-groups";

const group = {
  destinationId: "d1",
  destinationName: "Orders",
  url: "https://e.com/a",
  responseStatus: 500 as number | null,
  errorKind: "http" as string | null,
  attempts: 3,
  messages: 2,
  failed: 1,
  retrying: 1,
  delivered: 0,
  lastAt: "2026-05-01T10:00:00.000Z",
  lastError: "HTTP 500",
};

describe("groupFilter", () => {
  it("names a status group by its exact status", () => {
    expect(groupFilter(group, "2026-05-01T00:00:00.000Z", "2026-05-02T00:00:00.000Z")).toEqual({
      destinationId: "d1",
      url: "https://e.com/a",
      from: "2026-05-01T00:00:00.000Z",
      // the group's window, so a replay chooses among the messages the group counted
      to: "2026-05-02T00:00:00.000Z",
      status: "500",
    });
  });
  it("names a group without an answer by its error kind", () => {
    expect(groupFilter({ ...group, responseStatus: null, errorKind: "timeout" }, "x", "y")).toMatchObject({
      errorKind: "timeout",
      statusClass: "none",
    });
  });
});
