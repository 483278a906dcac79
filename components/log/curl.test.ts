import { describe, expect, it } from "vitest";
import { curlCommand, shellQuote } from "./curl";

const TOKEN = "Bearer sk_live_0123456789abcdefWXYZ";

describe("curlCommand", () => {
  it("masks custom header values for a member who may not reveal them, keeping Eventrail's own headers", () => {
    const cmd = curlCommand(
      {
        url: "https://example.com/hook?a=1&b=2",
        headers: { authorization: TOKEN, "x-tenant": "acme", "webhook-signature": "v1,abc=", "content-type": "application/json" },
        body: '{"event":"Order Completed"}',
      },
      { reveal: false },
    );
    expect(cmd).not.toContain("sk_live");
    expect(cmd).not.toContain("acme");
    expect(cmd).toContain("-H 'authorization: ••••WXYZ'");
    expect(cmd).toContain("-H 'x-tenant: ••••'");
    expect(cmd).toContain("-H 'webhook-signature: v1,abc='");
    expect(cmd).toContain("-H 'content-type: application/json'");
    expect(cmd.startsWith("# Header values shown as •••• are masked")).toBe(true);
    expect(cmd).toContain("curl -X POST 'https://example.com/hook?a=1&b=2'");
  });

  it("shows the values to a member who may reveal them, with no masking note", () => {
    const cmd = curlCommand({ url: "https://e.com/", headers: [["Authorization", TOKEN]], body: null }, { reveal: true });
    expect(cmd).toBe(`curl -X POST 'https://e.com/' \\\n  -H 'Authorization: ${TOKEN}'`);
  });

  it("keeps an already masked value as it is and leaves out the headers curl sets", () => {
    const cmd = curlCommand(
      { method: "put", url: "https://e.com/", headers: { "x-key": "••••abcd", "content-length": "12", host: "e.com" }, body: "{}" },
      { reveal: true },
    );
    expect(cmd).toContain("curl -X PUT");
    expect(cmd).toContain("-H 'x-key: ••••abcd'");
    expect(cmd).not.toMatch(/content-length|host:/);
    expect(cmd.startsWith("# Header values")).toBe(true);
  });

  it("quotes a body with quotes and shell characters so the shell passes it through unchanged", () => {
    const body = `{"name":"O'Brien $(rm -rf /) \`x\`"}`;
    const cmd = curlCommand({ url: "https://e.com/", headers: {}, body }, { reveal: false });
    expect(cmd).toContain(`--data-raw ${shellQuote(body)}`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
