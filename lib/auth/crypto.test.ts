import { describe, expect, it } from "vitest";
import { randomToken, safeEqual, sha256 } from "./crypto";
import { generateWriteKey } from "../sources/sources";
import { readCookie } from "../api/principal";

describe("auth primitives", () => {
  it("makes unguessable prefixed tokens and stores only their SHA-256", () => {
    const a = randomToken("er_");
    expect(a).toMatch(/^er_[A-Za-z0-9_-]{43}$/);
    expect(randomToken("er_")).not.toBe(a);
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("compares secrets in constant time, including different lengths", () => {
    expect(safeEqual("same", "same")).toBe(true);
    expect(safeEqual("same", "Same")).toBe(false);
    expect(safeEqual("short", "longer")).toBe(false);
  });

  it("generates 32-character alphanumeric write keys safe in Basic auth", () => {
    const keys = new Set(Array.from({ length: 200 }, generateWriteKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it("reads one cookie out of a Cookie header", () => {
    const req = new Request("http://x/", { headers: { cookie: "a=1; er_session=abc%3D; er_csrf=z" } });
    expect(readCookie(req, "er_session")).toBe("abc=");
    expect(readCookie(req, "er_csrf")).toBe("z");
    expect(readCookie(req, "missing")).toBeUndefined();
    // Not valid percent-encoding: no cookie (401), not a URIError (500).
    const broken = new Request("http://x/", { headers: { cookie: "er_session=%E0%A4%A; er_csrf=%ED%A0%80" } });
    expect(readCookie(broken, "er_session")).toBeUndefined();
    expect(readCookie(broken, "er_csrf")).toBeUndefined();
  });
});
