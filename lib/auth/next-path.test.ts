import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

const ORIGIN = "http://localhost:3000";

describe("safeNextPath", () => {
  it("keeps paths on the app's own origin, with their query and hash", () => {
    expect(safeNextPath("/settings", ORIGIN)).toBe("/settings");
    expect(safeNextPath("/log?status=failed#top", ORIGIN)).toBe("/log?status=failed#top");
    expect(safeNextPath("/destinations/abc", ORIGIN)).toBe("/destinations/abc");
    expect(safeNextPath("settings", ORIGIN)).toBe("/settings");
    expect(safeNextPath(`${ORIGIN}/audiences`, ORIGIN)).toBe("/audiences");
    expect(safeNextPath("/%2F%2Fevil.example", ORIGIN)).toBe("/%2F%2Fevil.example");
  });

  it("falls back when there is no next", () => {
    expect(safeNextPath(null, ORIGIN)).toBe("/sources");
    expect(safeNextPath("", ORIGIN)).toBe("/sources");
    expect(safeNextPath(undefined, ORIGIN, "/overview")).toBe("/overview");
  });

  // As useSearchParams() hands them over: already percent-decoded once.
  const offsite = [
    "/\\127.0.0.1:3960/x", // next=/%5C127.0.0.1:3960/x
    "/\t/127.0.0.1:3960/x", // next=/%09/127.0.0.1:3960/x
    "/\n/127.0.0.1:3960/x",
    "/\r/127.0.0.1:3960/x",
    "\t//127.0.0.1:3960/x",
    " //evil.example",
    "//evil.example",
    "//evil.example/path?x=1",
    "///evil.example",
    "////evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "/\\/evil.example",
    "https://evil.example",
    "http://evil.example/settings",
    "HTTPS://evil.example",
    "https:evil.example",
    "http:/evil.example",
    "//localhost:3001/x",
    "http://localhost:3000@evil.example/",
    "//localhost:3000@evil.example",
    "https://localhost:3000/x",
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "/.//evil.example",
    "/x/..//evil.example",
    "/%2e%2e//evil.example",
    "//%65vil.example",
    "//evil%2Eexample",
    "http://[::1]:3960/",
    "//127.0.0.1:3960/x",
    "//0x7f.1/x",
  ];
  it.each(offsite)("never leaves the origin for %j", (next) => {
    const out = safeNextPath(next, ORIGIN);
    expect(new URL(out, ORIGIN).origin).toBe(ORIGIN);
    expect(out.startsWith("/") && !out.startsWith("//") && !out.startsWith("/\\")).toBe(true);
  });

  it("sends the known attack spellings to the fallback, not to a path that merely looks local", () => {
    for (const next of ["/\\127.0.0.1:3960/x", "/\t/127.0.0.1:3960/x", "//evil", "https://evil", "/\\evil", "javascript:alert(1)"]) {
      expect(safeNextPath(next, ORIGIN)).toBe("/sources");
    }
  });
});
