import { describe, expect, it } from "vitest";
import { withBearer } from "./oauth2-tokens";

describe("withBearer (docs/endpoint-auth.md#request-log)", () => {
  it("sends the token and logs it masked, in place of a custom Authorization header", () => {
    const req = {
      headers: { Authorization: "Basic abc", "content-type": "application/json" },
      loggedHeaders: { Authorization: "••••", "content-type": "application/json" },
      body: "{}",
    };
    const out = withBearer(req, "tok-123");
    expect(out.headers).toEqual({ "content-type": "application/json", authorization: "Bearer tok-123" });
    expect(out.loggedHeaders).toEqual({ "content-type": "application/json", authorization: "Bearer ****" });
    expect(JSON.stringify(out.loggedHeaders)).not.toContain("tok-123");
    expect(req.headers.Authorization).toBe("Basic abc");
  });
});
