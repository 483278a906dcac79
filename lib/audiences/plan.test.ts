import { describe, expect, it } from "vitest";
import { chunkRanges, destinationsFor, planAudienceSync } from "./plan";

const at = new Date("2026-11-21T10:00:00Z");

describe("planAudienceSync", () => {
  it("first sync: every destination gets every member", () => {
    const p = planAudienceSync(
      [
        { id: "d1", syncedAt: null },
        { id: "d2", syncedAt: null },
      ],
      { members: 30, entered: 30, exited: 0 },
    );
    expect(p).toEqual({ full: ["d1", "d2"], changes: [], total: 60 });
  });

  it("later syncs: only entered and exited users, per destination", () => {
    const p = planAudienceSync([{ id: "d1", syncedAt: at }], { members: 30, entered: 2, exited: 3 });
    expect(p).toEqual({ full: [], changes: ["d1"], total: 5 });
  });

  it("no change: nothing to send", () => {
    expect(planAudienceSync([{ id: "d1", syncedAt: at }], { members: 30, entered: 0, exited: 0 }).total).toBe(0);
  });

  it("a newly connected destination gets the full membership while the others get changes", () => {
    const p = planAudienceSync(
      [
        { id: "old", syncedAt: at },
        { id: "new", syncedAt: null },
      ],
      { members: 10, entered: 1, exited: 1 },
    );
    expect(p).toEqual({ full: ["new"], changes: ["old"], total: 12 });
  });

  it("no destination: membership is still computed, nothing sent", () => {
    expect(planAudienceSync([], { members: 10, entered: 10, exited: 0 })).toEqual({ full: [], changes: [], total: 0 });
  });
});

describe("chunkRanges", () => {
  it("covers every row once", () => {
    expect(chunkRanges(0, 5)).toEqual([]);
    expect(chunkRanges(5, 5)).toEqual([[0, 5]]);
    expect(chunkRanges(12, 5)).toEqual([
      [0, 5],
      [5, 10],
      [10, 12],
    ]);
  });
});

describe("destinationsFor", () => {
  const plan = { full: ["new"], changes: ["old"] };
  it("entered users go to every destination; those who left only to destinations that had them; unchanged members only to new ones", () => {
    expect(destinationsFor(plan, "entered")).toEqual(["old", "new"]);
    expect(destinationsFor(plan, "exited")).toEqual(["old"]);
    expect(destinationsFor(plan, "stayed")).toEqual(["new"]);
  });
});
