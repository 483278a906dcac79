import { execFile } from "node:child_process";
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { standardKey, standardSignatures, xSignatureKey, xSignatures } from "@/lib/webhooks/signing";
import { SNIPPET_FUNCTIONS, VERIFY_SNIPPETS, type SigningScheme } from "@/components/destinations/verify-snippets";

/**
 * The destination page's Python "verify in your code" snippets (components/destinations/verify-snippets.ts),
 * run by a real python3 against bodies and headers made by our own signer: each case's verdict must be
 * the one expected. The headers reach the snippet case-insensitively, as Flask's and Django's do.
 */
type Case = { name: string; secret: string; body: string; headers: Record<string, string>; expect: boolean };

const HARNESS = `
import base64, json, sys

class Headers(dict):
    """Case-insensitive, as Flask's request.headers."""
    def __init__(self, d):
        super().__init__((k.lower(), v) for k, v in d.items())
    def get(self, k, default=None):
        return super().get(k.lower(), default)

out = []
for c in json.load(sys.stdin):
    out.append({"name": c["name"], "ok": VERIFY(c["secret"], base64.b64decode(c["body"]), Headers(c["headers"]))})
print(json.dumps(out))
`;

async function runPython(scheme: SigningScheme, cases: Case[]) {
  const program = `${VERIFY_SNIPPETS[scheme].python}\nVERIFY = ${SNIPPET_FUNCTIONS[scheme].python}\n${HARNESS}`;
  const child = execFile("python3", ["-c", program], { timeout: 20_000 });
  child.stdin!.end(JSON.stringify(cases.map((c) => ({ ...c, body: Buffer.from(c.body, "utf8").toString("base64") }))));
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const results = JSON.parse(stdout) as { name: string; ok: boolean }[];
  expect(results).toEqual(cases.map((c) => ({ name: c.name, ok: c.expect })));
}

const body = '{"type":"track","event":"Order Completed","userId":"zoë 🚀","properties":{"big":12345678901234567890,"total":42.5}}';
const changed = body.replace("42.5", "42.6");
const whsec = (bytes = 32) => `whsec_${crypto.randomBytes(bytes).toString("base64")}`;

describe("the Python verify snippets, run by python3 against our signer", () => {
  it("X-Signature: as signed, changed, another secret, and both secrets during a rotation", async () => {
    const secret = "s3cr3t-✓-0123456789";
    const oldSecret = "old-secret-0123456789";
    const alone = xSignatures(xSignatureKey(secret), null, body);
    const during = xSignatures(xSignatureKey(secret), xSignatureKey(oldSecret), body);
    const rotating = { "X-Signature": during.signature, "X-Signature-Next": during.next! };
    await runPython("xSignature", [
      { name: "signed", secret, body, headers: { "X-Signature": alone.signature }, expect: true },
      { name: "lower-case header", secret, body, headers: { "x-signature": alone.signature }, expect: true },
      { name: "changed body", secret, body: changed, headers: { "X-Signature": alone.signature }, expect: false },
      {
        name: "re-serialised body",
        secret,
        body: JSON.stringify(JSON.parse(body)),
        headers: { "X-Signature": alone.signature },
        expect: false,
      },
      { name: "another secret", secret: oldSecret, body, headers: { "X-Signature": alone.signature }, expect: false },
      { name: "no signature", secret, body, headers: {}, expect: false },
      { name: "rotating, old secret", secret: oldSecret, body, headers: rotating, expect: true },
      { name: "rotating, new secret", secret, body, headers: rotating, expect: true },
    ]);
  });

  it("Standard Webhooks: webhook-id.webhook-timestamp.body, timestamps, an unpadded secret, and a rotation", async () => {
    const secret = whsec();
    const oldSecret = whsec();
    const unpadded = whsec(25).replace(/=+$/, "");
    const id = "msg_0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d";
    const now = Math.floor(Date.now() / 1000);
    const headers = (s: string, ts = now, previous: string | null = null) => ({
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": standardSignatures(standardKey(s), previous ? standardKey(previous) : null, id, ts, body),
    });
    await runPython("standardWebhooks", [
      { name: "signed", secret, body, headers: headers(secret), expect: true },
      { name: "changed body", secret, body: changed, headers: headers(secret), expect: false },
      { name: "changed id", secret, body, headers: { ...headers(secret), "webhook-id": "msg_other" }, expect: false },
      { name: "another secret", secret: oldSecret, body, headers: headers(secret), expect: false },
      { name: "stale", secret, body, headers: headers(secret, now - 400), expect: false },
      { name: "future", secret, body, headers: headers(secret, now + 400), expect: false },
      { name: "unreadable timestamp", secret, body, headers: { ...headers(secret), "webhook-timestamp": "soon" }, expect: false },
      { name: "unpadded secret", secret: unpadded, body, headers: headers(unpadded), expect: true },
      { name: "rotating, old secret", secret: oldSecret, body, headers: headers(secret, now, oldSecret), expect: true },
      { name: "rotating, new secret", secret, body, headers: headers(secret, now, oldSecret), expect: true },
    ]);
  });
});
