import { describe, expect, it } from "vitest";
import { middleEllipsis } from "./middle-ellipsis";

describe("middleEllipsis", () => {
  it("leaves a value that fits alone", () => {
    expect(middleEllipsis("https://e.com/a", 40)).toBe("https://e.com/a");
    expect(middleEllipsis("x".repeat(40), 40)).toBe("x".repeat(40));
  });

  it("keeps the differing end of two URLs of one destination, and the host", () => {
    const a = middleEllipsis("http://127.0.0.1:4410/ok/some/long/path/to/the/receiver-a", 32);
    const b = middleEllipsis("http://127.0.0.1:4410/ok/some/long/path/to/the/receiver-b", 32);
    expect(a).not.toBe(b);
    expect(a.endsWith("receiver-a")).toBe(true);
    expect(a.startsWith("http://127.0.0")).toBe(true);
    expect(Array.from(a)).toHaveLength(32);
    expect(a).toContain("…");
  });

  it("cuts a 2,000-character URL to its budget", () => {
    const url = `https://e.com/?q=${"a".repeat(2000)}&end=1`;
    const cut = middleEllipsis(url, 60);
    expect(Array.from(cut)).toHaveLength(60);
    expect(cut.endsWith("&end=1")).toBe(true);
  });

  it("never splits a character made of two UTF-16 units", () => {
    const cut = middleEllipsis("😀".repeat(50), 11);
    expect(cut).toBe(`${"😀".repeat(5)}…${"😀".repeat(5)}`);
  });
});
