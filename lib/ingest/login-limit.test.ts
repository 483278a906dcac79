import { describe, expect, it } from "vitest";
import { AUTH_MAX_BODY_BYTES, authEndpoints } from "../auth/contract";
import { LOGIN_BODY_BYTES, LOGIN_PATHS } from "./proxy";

describe("the login lane's body limit at the edge", () => {
  it("is the web app's, on the same paths (lib/auth/contract.ts)", () => {
    expect(LOGIN_BODY_BYTES).toBe(AUTH_MAX_BODY_BYTES);
    expect([...LOGIN_PATHS]).toEqual([authEndpoints.login.path, authEndpoints.setup.path]);
    expect([authEndpoints.login.maxBodyBytes, authEndpoints.setup.maxBodyBytes]).toEqual([LOGIN_BODY_BYTES, LOGIN_BODY_BYTES]);
  });
});
