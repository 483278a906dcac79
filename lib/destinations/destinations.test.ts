import { beforeEach, describe, expect, it, vi } from "vitest";

// No database here: prisma is a stub whose findFirst each test sets up.
const { findFirst } = vi.hoisted(() => ({ findFirst: vi.fn() }));
vi.mock("../platform/db", () => ({ prisma: () => ({ destination: { findFirst } }) }));

const { getDestination } = await import("./destinations");

const workspaceId = "7a0c7f4e-2a7e-4c4e-9b1a-3f1f4f1e0a01";
const id = "0b6f1c52-9d3e-4f51-8a4c-2a1b3c4d5e6f";

describe("getDestination", () => {
  // A block body: a function returned from beforeEach would be run as its teardown.
  beforeEach(() => {
    findFirst.mockReset();
  });

  it("answers 404 to an id that is not a uuid, without asking the database", async () => {
    for (const bad of ["not-an-id", "x\u0000y", `${id}0`]) {
      await expect(getDestination({ workspaceId, id: bad })).rejects.toMatchObject({ code: "not_found" });
    }
    expect(findFirst).not.toHaveBeenCalled();
  });

  it("answers 404 when the workspace has no such destination", async () => {
    findFirst.mockResolvedValue(null);
    await expect(getDestination({ workspaceId, id })).rejects.toMatchObject({ code: "not_found" });
  });

  it("lets a database failure through instead of calling it a 404", async () => {
    const outage = new Error("connect ECONNREFUSED 127.0.0.1:5432");
    findFirst.mockRejectedValue(outage);
    await expect(getDestination({ workspaceId, id })).rejects.toBe(outage);
  });
});
