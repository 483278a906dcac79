import { describe, expect, it } from "vitest";
import { fieldErrorsFromIssues } from "../api/field-errors";
import { destinationInputSchema, destinationPatchSchema, revealSchema, testSendSchema, writeOnlyHint } from "./contract";

const errors = (input: unknown) => {
  const r = destinationInputSchema.safeParse(input);
  return r.success ? {} : fieldErrorsFromIssues(r.error.issues);
};

describe("destinationInputSchema", () => {
  it("applies the defaults of docs/webhooks.md#settings", () => {
    expect(destinationInputSchema.parse({ name: "Hooks", urls: ["https://example.com/hook"] })).toEqual({
      name: "Hooks",
      urls: ["https://example.com/hook"],
      headers: [],
      standardWebhooks: false,
      enabled: true,
      sourceIds: [],
      mode: "any",
      retryWindowMinutes: 240,
      filter: null,
      method: "POST",
      mapping: null,
      numbers: "canonical",
      batch: null,
      ordering: "none",
      maxHoldMinutes: 60,
      rateLimit: null,
      auth: null,
      tls: null,
    });
  });

  it("takes per-user ordering and its hold limit, refusing a limit out of range at its field (docs/webhooks.md#ordering)", () => {
    const base = { name: "Hooks", urls: ["https://example.com/hook"] };
    expect(destinationInputSchema.parse({ ...base, ordering: "perUser", maxHoldMinutes: 5 })).toMatchObject({
      ordering: "perUser",
      maxHoldMinutes: 5,
    });
    expect(errors({ ...base, ordering: "byEvent", maxHoldMinutes: 0 })).toEqual({
      ordering: ["One of none, perUser"],
      maxHoldMinutes: ["At least 1 minute"],
    });
  });

  it("refuses an invalid mapping, method or URL template at the field and place, with the reason (docs/request-shape.md)", () => {
    const e = errors({
      name: "Hooks",
      urls: ["https://api.example.com/users/{{userId}}", "https://{{context.tenant}}.example.com/hook"],
      method: "DELETE",
      mapping: { data: { "@path": "$." }, email: { "@template": 42 }, x: { "@json": { mode: "encode", value: "a" } } },
    });
    expect(e).toEqual({
      "urls.1": ["Templates go in the path or query only: the scheme, host and port are fixed when you save"],
      method: ["One of POST, PUT, PATCH"],
      "mapping.email.@template": ["Should be a string or a mapping directive, not a number"],
      "mapping.x.@json": [
        "@json is a Segment directive Eventrail does not support; supported: @path, @template, @if, @arrayPath, @literal",
      ],
    });
    expect(errors({ name: "Hooks", urls: ["https://a.example"], mapping: [1] })).toEqual({
      mapping: ['A mapping is a JSON object, like {"@path": "$."} (the whole event)'],
    });
  });

  it("keys errors by field so the form can show them in place", () => {
    const e = errors({
      name: "",
      urls: ["https://ok.example", "example.com/no-scheme", "ftp://x"],
      headers: [
        { name: "content-type", value: "x" },
        { name: "X-Ok", value: "a\r\nb" },
      ],
      sharedSecret: "x".repeat(201),
      retryWindowMinutes: 10081,
      mode: "some",
    });
    expect(Object.keys(e).sort()).toEqual([
      "headers.0.name",
      "headers.1.value",
      "mode",
      "name",
      "retryWindowMinutes",
      "sharedSecret",
      "urls.1",
      "urls.2",
    ]);
  });

  it("limits URLs and headers to 5 and needs at least one URL", () => {
    const six = [1, 2, 3, 4, 5, 6].map((i) => `https://h${i}.example/`);
    expect(errors({ name: "n", urls: six }).urls).toBeDefined();
    expect(errors({ name: "n", urls: [] }).urls).toBeDefined();
    expect(
      errors({ name: "n", urls: ["https://a.example"], headers: six.map((_, i) => ({ name: `X-${i}`, value: "v" })) }).headers,
    ).toBeDefined();
  });

  it("refuses every reserved header name in any case", () => {
    for (const name of [
      "Content-Type",
      "USER-AGENT",
      "x-signature",
      "Content-Length",
      "Host",
      "webhook-id",
      "Webhook-Timestamp",
      "webhook-signature",
    ]) {
      expect(errors({ name: "n", urls: ["https://a.example"], headers: [{ name, value: "v" }] })["headers.0.name"]).toBeDefined();
    }
  });

  it("treats an empty secret as none", () => {
    expect(destinationInputSchema.parse({ name: "n", urls: ["https://a.example"], sharedSecret: "" }).sharedSecret).toBeNull();
  });

  it("patch is partial but validates what is given", () => {
    expect(destinationPatchSchema.parse({ enabled: false })).toEqual({ enabled: false });
    expect(destinationPatchSchema.safeParse({ urls: ["nope"] }).success).toBe(false);
  });
});

describe("testSendSchema", () => {
  it("accepts the seven types and an optional capture URL", () => {
    expect(testSendSchema.parse({ type: "alias", url: "http://localhost:3000/c/abc" }).type).toBe("alias");
    expect(testSendSchema.safeParse({ type: "other" }).success).toBe(false);
  });
});

describe("what a destination could never deliver with (issue 12 item 9)", () => {
  const headerError = (name: string, value = "v") => errors({ name: "n", urls: ["https://a.example"], headers: [{ name, value }] });

  it("refuses connection-level headers in any case", () => {
    for (const name of [
      "Connection",
      "keep-alive",
      "Proxy-Connection",
      "TE",
      "Trailer",
      "Transfer-Encoding",
      "UPGRADE",
      "Expect",
      "Proxy-Authorization",
      "Proxy-Authenticate",
      "Content-Encoding",
    ]) {
      expect(headerError(name)["headers.0.name"], name).toEqual([expect.stringMatching(/connection-level/)]);
    }
    expect(headerError("X-Connection-Id")).toEqual({});
  });

  it("takes header values of visible ASCII, spaces and tabs only", () => {
    for (const value of ["a\u0001b", "a\u007fb", "☃", "a\u2028b", "a\r\nb", "é"])
      expect(headerError("X-Team", value)["headers.0.value"], value).toBeDefined();
    expect(headerError("X-Team", 'Bearer abc.def~ghi "q" \t{}')).toEqual({});
  });

  it("refuses a URL with credentials and points to the Authorization header", () => {
    for (const url of ["http://alice:pw@example.com/", "https://alice@example.com/hook", "https://:pw@example.com/"]) {
      expect(errors({ name: "n", urls: [url] })["urls.0"], url).toEqual([expect.stringMatching(/Authorization header/)]);
    }
  });
});

describe("secrets (docs/signing.md#secrets)", () => {
  it("keeps a secret exactly as entered and refuses surrounding whitespace instead of trimming it", () => {
    const parsed = destinationInputSchema.parse({ name: "n", urls: ["https://a.example"], sharedSecret: "in side" });
    expect(parsed.sharedSecret).toBe("in side");
    for (const secret of [" s", "s ", "s\n", "\ts"])
      expect(errors({ name: "n", urls: ["https://a.example"], sharedSecret: secret }).sharedSecret, JSON.stringify(secret)).toBeDefined();
    const whsec = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    expect(errors({ name: "n", urls: ["https://a.example"], standardSecret: ` ${whsec}` }).standardSecret).toBeDefined();
    expect(errors({ name: "n", urls: ["https://a.example"], standardSecret: whsec })).toEqual({});
  });

  it('in a PATCH: omitted keeps, null or "" removes, a header without value keeps its stored value', () => {
    expect(destinationPatchSchema.parse({})).toEqual({});
    expect(destinationPatchSchema.parse({ sharedSecret: null }).sharedSecret).toBeNull();
    expect(destinationPatchSchema.parse({ sharedSecret: "" }).sharedSecret).toBeNull();
    expect(destinationPatchSchema.parse({ headers: [{ name: "X-Key" }, { name: "X-Gone", value: "" }] }).headers).toEqual([
      { name: "X-Key" },
      { name: "X-Gone", value: null },
    ]);
    expect(destinationInputSchema.safeParse({ name: "n", urls: ["https://a.example"], headers: [{ name: "X-Key" }] }).success).toBe(false);
  });

  it("hints at a stored value with its last 4 characters only when it is long enough", () => {
    expect(writeOnlyHint("0123456789abcdef")).toEqual({ set: true, last4: "cdef" });
    expect(writeOnlyHint("short")).toEqual({ set: true, last4: null });
    expect(writeOnlyHint(null)).toEqual({ set: false, last4: null });
  });

  it("reveals one value at a time, named as a secret or a header", () => {
    expect(revealSchema.parse({ secret: "sharedSecret" })).toEqual({ secret: "sharedSecret" });
    expect(revealSchema.parse({ header: "X-Api-Key" })).toEqual({ header: "X-Api-Key" });
    for (const bad of [{}, { secret: "password" }, { secret: "sharedSecret", header: "X" }])
      expect(revealSchema.safeParse(bad).success).toBe(false);
  });
});

describe("test-send payloads meet the Tracking API's limits", () => {
  const payloadErrors = (payload: Record<string, unknown>) => {
    const r = testSendSchema.safeParse({ type: "track", payload });
    return r.success ? {} : fieldErrorsFromIssues(r.error.issues);
  };
  it("refuses ids that would not fit their indexes, and oversized or over-deep payloads", () => {
    expect(Object.keys(payloadErrors({ messageId: "m".repeat(101) }))).toEqual(["payload.messageId"]);
    expect(Object.keys(payloadErrors({ userId: "u".repeat(10_000) }))).toEqual(["payload.userId"]);
    expect(Object.keys(payloadErrors({ event: "é".repeat(300) }))).toEqual(["payload.event"]);
    expect(Object.keys(payloadErrors({ properties: { pad: "p".repeat(40_000) } }))).toEqual(["payload"]);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { deep };
    expect(Object.keys(payloadErrors({ properties: deep as Record<string, unknown> }))).toEqual(["payload"]);
    expect(payloadErrors({ userId: "u_1", event: "Order Completed", properties: { total: 42 } })).toEqual({});
  });
});

describe("auth (docs/endpoint-auth.md#oauth2)", () => {
  const base = { name: "Hooks", urls: ["https://example.com/hook"] };
  const auth = { type: "oauth2", tokenUrl: "https://auth.example.com/token", clientId: "eventrail", clientSecret: "s3cret-value-1234" };

  it("fills in the defaults and reads empty optional fields as none", () => {
    expect(destinationInputSchema.parse({ ...base, auth: { ...auth, scope: "", audience: null } }).auth).toEqual({
      ...auth,
      scope: null,
      audience: null,
      method: "client_secret_basic",
    });
  });

  it("refuses a token URL that is not http(s) or carries credentials, an empty client id and a padded secret, at their fields", () => {
    expect(errors({ ...base, auth: { ...auth, tokenUrl: "ftp://auth.example.com/token" } })).toHaveProperty(["auth.tokenUrl"]);
    expect(errors({ ...base, auth: { ...auth, tokenUrl: "https://a:b@auth.example.com/token" } })).toHaveProperty(["auth.tokenUrl"]);
    expect(errors({ ...base, auth: { ...auth, clientId: " " } })).toHaveProperty(["auth.clientId"]);
    expect(errors({ ...base, auth: { ...auth, clientSecret: " padded " } })).toHaveProperty(["auth.clientSecret"]);
    expect(errors({ ...base, auth: { ...auth, method: "private_key_jwt" } })).toHaveProperty(["auth.method"]);
  });

  it("reads an empty client secret as left out, so a PATCH keeps the stored one", () => {
    expect(destinationPatchSchema.parse({ auth: { ...auth, clientSecret: "" } }).auth?.clientSecret).toBeUndefined();
    expect(destinationPatchSchema.parse({ auth: null }).auth).toBeNull();
  });
});
