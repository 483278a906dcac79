/**
 * The receiver-side "verify in your code" snippets the destination page shows beside each signing
 * secret (docs/signing.md#verifying-x-signature): Node, Python and Go, each verifying over the raw
 * body before any JSON parsing, in constant time, and accepting the digest in X-Signature-Next (or any
 * `v1,` entry of webhook-signature) so that the same code works before, during and after a rotation.
 * Plain text, browser-safe; verify-snippets.test.ts runs the Node ones against our own signer and
 * test/verify-snippets.int.test.ts the Python ones.
 */
export type SigningScheme = "xSignature" | "standardWebhooks";
export type SnippetLanguage = "node" | "python" | "go";

export const SNIPPET_LANGUAGES: readonly { id: SnippetLanguage; label: string }[] = [
  { id: "node", label: "Node" },
  { id: "python", label: "Python" },
  { id: "go", label: "Go" },
];

/** The function each snippet defines, by scheme and language (the tests call it by this name). */
export const SNIPPET_FUNCTIONS: Record<SigningScheme, Record<SnippetLanguage, string>> = {
  xSignature: { node: "verifyXSignature", python: "verify_x_signature", go: "verifyXSignature" },
  standardWebhooks: { node: "verifyStandardWebhooks", python: "verify_standard_webhooks", go: "verifyStandardWebhooks" },
};

const X_SIGNATURE_NODE = `// rawBody: the request body as a Buffer, before any JSON parsing
// (Express: express.raw({ type: "application/json" })); headers: req.headers.
const crypto = require("node:crypto");

function verifyXSignature(secret, rawBody, headers) {
  const expected = crypto.createHmac("sha1", secret).update(rawBody).digest("hex");
  // During a rotation the new secret's digest is in X-Signature-Next.
  return [headers["x-signature"], headers["x-signature-next"]].some(
    (sent) =>
      typeof sent === "string" &&
      sent.length === expected.length &&
      crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected)),
  );
}
`;

const X_SIGNATURE_PYTHON = `# raw_body: the request body as bytes, before any JSON parsing
# (Flask: request.get_data()); headers: request.headers.
import hashlib
import hmac


def verify_x_signature(secret: str, raw_body: bytes, headers) -> bool:
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha1).hexdigest().encode()
    # During a rotation the new secret's digest is in X-Signature-Next.
    sent = [headers.get("X-Signature"), headers.get("X-Signature-Next")]
    return any(s is not None and hmac.compare_digest(expected, s.encode()) for s in sent)
`;

const X_SIGNATURE_GO = `// raw: the request body as read (io.ReadAll(r.Body)), before any JSON decoding; h: r.Header.
import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
)

func verifyXSignature(secret string, raw []byte, h http.Header) bool {
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write(raw)
	expected := []byte(hex.EncodeToString(mac.Sum(nil)))
	// During a rotation the new secret's digest is in X-Signature-Next.
	for _, name := range []string{"X-Signature", "X-Signature-Next"} {
		if sent := h.Get(name); sent != "" && hmac.Equal(expected, []byte(sent)) {
			return true
		}
	}
	return false
}
`;

const STANDARD_NODE = `// rawBody: the request body as a Buffer, before any JSON parsing
// (Express: express.raw({ type: "application/json" })); headers: req.headers.
// Signed: "<webhook-id>.<webhook-timestamp>.<body>" with the key after whsec_.
const crypto = require("node:crypto");

function verifyStandardWebhooks(secret, rawBody, headers, toleranceSeconds = 300) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  if (!id || !/^\\d+$/.test(timestamp ?? "")) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = crypto
    .createHmac("sha256", key)
    .update(\`\${id}.\${timestamp}.\`)
    .update(rawBody)
    .digest("base64");
  // Space-separated "v1,<signature>" entries; during a rotation, one per secret.
  return String(headers["webhook-signature"] ?? "")
    .split(" ")
    .some((entry) => {
      const sent = entry.startsWith("v1,") ? entry.slice(3) : "";
      return sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
    });
}
`;

const STANDARD_PYTHON = `# raw_body: the request body as bytes, before any JSON parsing
# (Flask: request.get_data()); headers: request.headers.
# Signed: "<webhook-id>.<webhook-timestamp>.<body>" with the key after whsec_.
import base64
import hashlib
import hmac
import time


def verify_standard_webhooks(secret: str, raw_body: bytes, headers, tolerance_seconds: int = 300) -> bool:
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    if not msg_id or not timestamp or not timestamp.isdigit():
        return False
    if abs(time.time() - int(timestamp)) > tolerance_seconds:
        return False
    b64 = secret.removeprefix("whsec_").rstrip("=")
    key = base64.b64decode(b64 + "=" * (-len(b64) % 4))
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    # Space-separated "v1,<signature>" entries; during a rotation, one per secret.
    entries = headers.get("webhook-signature", "").split(" ")
    return any(e.startswith("v1,") and hmac.compare_digest(expected, e[3:].encode()) for e in entries)
`;

const STANDARD_GO = `// raw: the request body as read (io.ReadAll(r.Body)), before any JSON decoding; h: r.Header.
// Signed: "<webhook-id>.<webhook-timestamp>.<body>" with the key after whsec_.
import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func verifyStandardWebhooks(secret string, raw []byte, h http.Header) bool {
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil {
		return false
	}
	if age := time.Now().Unix() - sec; age > 300 || age < -300 {
		return false
	}
	b64 := strings.TrimRight(strings.TrimPrefix(secret, "whsec_"), "=")
	key, err := base64.RawStdEncoding.DecodeString(b64)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(raw)
	expected := []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	// Space-separated "v1,<signature>" entries; during a rotation, one per secret.
	for _, entry := range strings.Split(h.Get("webhook-signature"), " ") {
		if sent, ok := strings.CutPrefix(entry, "v1,"); ok && hmac.Equal(expected, []byte(sent)) {
			return true
		}
	}
	return false
}
`;

export const VERIFY_SNIPPETS: Record<SigningScheme, Record<SnippetLanguage, string>> = {
  xSignature: { node: X_SIGNATURE_NODE, python: X_SIGNATURE_PYTHON, go: X_SIGNATURE_GO },
  standardWebhooks: { node: STANDARD_NODE, python: STANDARD_PYTHON, go: STANDARD_GO },
};
