import { beforeEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../platform/errors";
import { listSourceEvents } from "./debugger";
import { getSource } from "./sources";

// A database that is down: every query fails the way pg does when it cannot connect.
const findFirst = vi.fn();
vi.mock("../platform/db", () => ({ prisma: () => ({ source: { findFirst } }) }));

const WS = "00000000-0000-0000-0000-0000000000aa";
const ID = "00000000-0000-0000-0000-0000000000bb";
const outage = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

beforeEach(() => {
  findFirst.mockReset();
  findFirst.mockRejectedValue(outage);
});

describe("a source id in a URL", () => {
  it("answers 404 for a malformed id without asking the database", async () => {
    await expect(getSource({ workspaceId: WS, id: "not-a-uuid" })).rejects.toMatchObject({ code: "not_found" });
    await expect(listSourceEvents({ workspaceId: WS, sourceId: "1; drop", query: { limit: 50 } })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(findFirst).not.toHaveBeenCalled();
  });

  it("lets a database outage through as the error it is, never a 404", async () => {
    for (const call of [
      getSource({ workspaceId: WS, id: ID }),
      listSourceEvents({ workspaceId: WS, sourceId: ID, query: { limit: 50 } }),
    ]) {
      const err = await call.catch((e: unknown) => e);
      expect(err).toBe(outage);
      expect(err).not.toBeInstanceOf(AppError);
    }
  });

  it("answers 404 for a well-formed id the workspace does not have", async () => {
    findFirst.mockResolvedValue(null);
    await expect(getSource({ workspaceId: WS, id: ID })).rejects.toMatchObject({ code: "not_found", message: "Source not found" });
  });
});
