import { describe, expect, it } from "vitest";
import { fieldErrorsFromIssues } from "../errors";
import { destinationInputSchema, destinationPatchSchema, testSendSchema } from "./schemas";

const errors = (input: unknown) => {
  const r = destinationInputSchema.safeParse(input);
  return r.success ? {} : fieldErrorsFromIssues(r.error.issues);
};

describe("destinationInputSchema", () => {
  it("applies the defaults of §4/§9", () => {
    expect(destinationInputSchema.parse({ name: "Hooks", urls: ["https://example.com/hook"] })).toEqual({
      name: "Hooks",
      urls: ["https://example.com/hook"],
      headers: [],
      standardWebhooks: false,
      enabled: true,
      sourceIds: [],
      mode: "any",
      retryWindowMinutes: 240,
    });
  });

  it("keys errors by field so the form can show them in place", () => {
    const e = errors({
      name: "",
      urls: ["https://ok.example", "example.com/no-scheme", "ftp://x"],
      headers: [{ name: "content-type", value: "x" }, { name: "X-Ok", value: "a\r\nb" }],
      sharedSecret: "x".repeat(201),
      retryWindowMinutes: 10081,
      mode: "some",
    });
    expect(Object.keys(e).sort()).toEqual(["headers.0.name", "headers.1.value", "mode", "name", "retryWindowMinutes", "sharedSecret", "urls.1", "urls.2"]);
  });

  it("limits URLs and headers to 5 and needs at least one URL", () => {
    const six = [1, 2, 3, 4, 5, 6].map((i) => `https://h${i}.example/`);
    expect(errors({ name: "n", urls: six }).urls).toBeDefined();
    expect(errors({ name: "n", urls: [] }).urls).toBeDefined();
    expect(errors({ name: "n", urls: ["https://a.example"], headers: six.map((_, i) => ({ name: `X-${i}`, value: "v" })) }).headers).toBeDefined();
  });

  it("refuses every reserved header name in any case", () => {
    for (const name of ["Content-Type", "USER-AGENT", "x-signature", "Content-Length", "Host", "webhook-id", "Webhook-Timestamp", "webhook-signature"]) {
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
