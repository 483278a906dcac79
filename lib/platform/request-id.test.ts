import { describe, expect, it } from "vitest";
import { requestIdOf } from "./request-id";

const req = (id?: string) => new Request("http://x/", { headers: id === undefined ? {} : { "x-request-id": id } });

describe("requestIdOf", () => {
  it("keeps a caller's sane request id", () => {
    expect(requestIdOf(req("lb-0123456789abcdef"))).toBe("lb-0123456789abcdef");
  });
  it("replaces a missing, short, long or odd one with a fresh uuid (no log injection)", () => {
    for (const bad of [undefined, "", "short", "x".repeat(129), "has space in it", 'quote"and{json}']) {
      expect(requestIdOf(req(bad))).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
