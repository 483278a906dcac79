import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalPath, checkTarget, hostProblem } from "./request-checks";

describe("hostProblem", () => {
  it("takes names, addresses and ports", () => {
    for (const host of [
      "h",
      "eventrail.example",
      "eventrail.example.",
      "EVENTS.example:443",
      "a_b.example",
      "127.0.0.1:3000",
      "[::1]",
      "[2001:db8::1]:8443",
    ])
      expect({ host, problem: hostProblem(host) }).toEqual({ host, problem: null });
  });

  it("refuses what is not a host, with a reason", () => {
    for (const host of [
      undefined,
      "",
      "[",
      "[::1",
      "[zz]",
      "]",
      "a[b",
      "a b",
      'a"b',
      "a,b",
      "a\\b",
      "a:99999",
      "a:b",
      "@a",
      "a/b",
      "%61",
      "a..b",
      ".a",
      `${"a".repeat(64)}.example`,
      ["a", "b"],
    ])
      expect({ host, problem: hostProblem(host as string) }).toEqual({ host, problem: expect.stringMatching(/Host/) });
  });
});

describe("checkTarget", () => {
  it("keeps the path and query as sent", () => {
    expect(checkTarget("/api/logs?messageId=a%20b&x=[1]+2")).toEqual({ path: "/api/logs", query: "messageId=a%20b&x=[1]+2" });
    expect(checkTarget("/login")).toEqual({ path: "/login", query: "" });
  });

  it("refuses a backslash and malformed escapes", () => {
    for (const target of ["/a\\b", "/\\\\evil.example/", "/x?messageId=%zz", "/x?%", "/x?a=%E0%A4%A", "/x?a=%E0%A4", "/%zz"])
      expect(checkTarget(target)).toEqual({ problem: expect.any(String) });
  });
});

describe("canonicalPath", () => {
  const segment = fc.oneof(
    fc.stringMatching(/^[a-z0-9._~-]{0,4}$/),
    fc.constantFrom(".", "%2e", "%2E", "..", "%2e%2E", "", "%41", "%7e", "%2f", "%c3%a9", "%3F", "%25"),
  );
  const paths = fc.array(segment, { maxLength: 8 }).map((s) => `/${s.join("/")}`);

  it("is a fixed point for itself and for the URL parser, and means the same characters as the path sent", () => {
    fc.assert(
      fc.property(paths, (path) => {
        const c = canonicalPath(path);
        const dotDot = path.split("/").some((s) => decodeURIComponent(s) === "..");
        expect(c === null).toBe(dotDot);
        if (c === null) return;
        expect(canonicalPath(c)).toBe(c);
        expect(new URL(c, "http://h").pathname).toBe(c);
        // The same segments, decoded, once dot and empty segments are set aside.
        const meaning = (p: string) =>
          p
            .split("/")
            .map((s) => decodeURIComponent(s))
            .filter((s) => s !== "" && s !== ".");
        expect(meaning(c)).toEqual(meaning(path));
      }),
      { seed: 48, numRuns: 2_000 },
    );
  });
});
