import { describe, expect, it } from "vitest";
import { profileChanges, type ProfileInput } from "./profiles";

const msg = (m: Partial<ProfileInput> & { type: string }): ProfileInput => ({
  userId: null,
  anonymousId: null,
  timestamp: "2026-11-21T10:00:00.000Z",
  ...m,
});

describe("profileChanges", () => {
  it("ignores track/page/screen/group calls and identify without a userId", () => {
    const r = profileChanges([
      msg({ type: "track", userId: "u1", anonymousId: "a1" }),
      msg({ type: "page", userId: "u1" }),
      msg({ type: "identify", anonymousId: "a2", traits: { plan: "pro" } }),
    ]);
    expect(r).toEqual({ profiles: [], links: [] });
  });

  it("merges one user's identifies into one change, the newest timestamp winning trait by trait", () => {
    const r = profileChanges([
      msg({ type: "identify", userId: "u1", traits: { plan: "pro", email: "new@x.io" }, timestamp: "2026-11-21T10:00:02.000Z" }),
      msg({ type: "identify", userId: "u1", traits: { plan: "free", country: "DE" }, timestamp: "2026-11-21T10:00:01.000Z" }),
      msg({ type: "identify", userId: "u2", traits: { plan: "free" } }),
    ]);
    expect(r.profiles.sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
      { userId: "u1", traits: { plan: "pro", country: "DE", email: "new@x.io" }, anonymousIds: [], at: "2026-11-21T10:00:02.000Z" },
      { userId: "u2", traits: { plan: "free" }, anonymousIds: [], at: "2026-11-21T10:00:00.000Z" },
    ]);
  });

  it("keeps arrival order between calls with the same timestamp", () => {
    const r = profileChanges([
      msg({ type: "identify", userId: "u1", traits: { plan: "free" } }),
      msg({ type: "identify", userId: "u1", traits: { plan: "pro" } }),
    ]);
    expect(r.profiles[0].traits).toEqual({ plan: "pro" });
  });

  it("joins anonymousId (identify) and previousId (alias) to the userId, the later link winning", () => {
    const r = profileChanges([
      msg({ type: "identify", userId: "u1", anonymousId: "anon-1", traits: {} }),
      msg({ type: "alias", userId: "u1", previousId: "anon-2" }),
      msg({ type: "alias", userId: "u2", previousId: "anon-1", timestamp: "2026-11-21T11:00:00.000Z" }),
      msg({ type: "identify", userId: "u3", anonymousId: "u3" }),
    ]);
    expect(r.profiles.map((p) => [p.userId, p.anonymousIds])).toEqual([
      ["u1", ["anon-1", "anon-2"]],
      ["u3", []],
      ["u2", ["anon-1"]],
    ]);
    expect(r.links).toEqual([
      { anonymousId: "anon-1", userId: "u2" },
      { anonymousId: "anon-2", userId: "u1" },
    ]);
  });
});
