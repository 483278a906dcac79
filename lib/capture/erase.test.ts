import { describe, expect, it } from "vitest";
import { carriesUser } from "./erase";

const alice = { userId: "alice", anonymousIds: new Set(["anon-a"]), messageIds: new Set(["m-erased"]) };
const carries = (body: unknown) => carriesUser(typeof body === "string" ? body : JSON.stringify(body), alice);

describe("which captured bodies carry an erased user's events (docs/deletions.md#every-store)", () => {
  it("finds their event alone, in a batch, in a Tracking API batch, and nested by a mapping", () => {
    expect(carries({ type: "track", userId: "alice" })).toBe(true);
    expect(carries([{ userId: "bob" }, { userId: "alice" }])).toBe(true);
    expect(carries({ batch: [{ type: "page", anonymousId: "anon-a" }] })).toBe(true);
    expect(carries({ data: { event: { messageId: "m-erased" } } })).toBe(true);
  });

  it("leaves other users' events, even one that names them in a property or an anonymousId beside another userId", () => {
    expect(carries({ userId: "bob", properties: { friend: "alice" } })).toBe(false);
    expect(carries({ userId: "bob", anonymousId: "anon-a" })).toBe(false);
    expect(carries([{ userId: "bob" }, "alice"])).toBe(false);
  });

  it("erases a body that is not JSON (cut at 1 MB): the database found their value in it", () => {
    expect(carries('[{"userId":"alice","properties":{"note":"tr')).toBe(true);
  });
});
