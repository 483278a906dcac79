import { describe, expect, it } from "vitest";
import { maskCapturedHeaders } from "./mask";

describe("maskCapturedHeaders", () => {
  it("masks credentials and custom values, keeping Eventrail's own headers and standard ones readable", () => {
    const masked = maskCapturedHeaders({
      authorization: "Bearer sk_live_0123456789abcdefWXYZ",
      "x-tenant": "acme",
      "x-signature": "abc123",
      "webhook-signature": "v1,xyz=",
      "content-type": "application/json",
      "user-agent": "Eventrail.io/1.0",
      "x-forwarded-for": "10.0.0.1",
      Cookie: "session=abc",
    });
    expect(masked).toEqual({
      authorization: "••••WXYZ",
      "x-tenant": "••••",
      "x-signature": "abc123",
      "webhook-signature": "v1,xyz=",
      "content-type": "application/json",
      "user-agent": "Eventrail.io/1.0",
      "x-forwarded-for": "10.0.0.1",
      Cookie: "••••",
    });
  });
});
