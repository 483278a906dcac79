import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderUrl, urlTemplateProblem } from "./url-template";

describe("urlTemplateProblem", () => {
  it("accepts templates in the path and query, and URLs without any", () => {
    expect(urlTemplateProblem("https://api.example.com/users/{{userId}}")).toBeNull();
    expect(urlTemplateProblem("https://api.example.com/e?name={{event}}&plan={{ traits.plan }}")).toBeNull();
    expect(urlTemplateProblem("https://api.example.com:8443/hook")).toBeNull();
  });

  it("refuses templates in the scheme, host or port, after #, and unclosed or empty ones", () => {
    const origin = "Templates go in the path or query only: the scheme, host and port are fixed when you save";
    expect(urlTemplateProblem("https://{{context.tenant}}.example.com/hook")).toBe(origin);
    expect(urlTemplateProblem("https://api.example.com:{{port}}/hook")).toBe(origin);
    expect(urlTemplateProblem("https://{{host}}")).toBe(origin);
    expect(urlTemplateProblem("https://api.example.com/x#{{userId}}")).toBe("Templates go in the path or query only, not after #");
    expect(urlTemplateProblem("https://api.example.com/users/{{userId")).toMatch(/not closed/);
    expect(urlTemplateProblem("https://api.example.com/users/{{ }}")).toMatch(/names one field/);
  });
});

describe("renderUrl", () => {
  const event = { userId: "ann/../admin?x=1#y", event: "Order Completed", traits: { plan: "pro" }, n: 0, empty: "" };

  it("percent-encodes each value, so it cannot change the URL's structure", () => {
    expect(renderUrl("https://api.example.com/users/{{userId}}?e={{event}}&p={{traits.plan}}&n={{n}}", event)).toEqual({
      url: "https://api.example.com/users/ann%2F..%2Fadmin%3Fx%3D1%23y?e=Order%20Completed&p=pro&n=0",
    });
  });

  it("refuses to build a URL whose template renders empty, naming the templates", () => {
    expect(renderUrl("https://api.example.com/users/{{missing}}/{{empty}}", event)).toEqual({
      error: "URL template {{missing}}, {{empty}} rendered empty for this event: not sent",
    });
  });

  it("refuses a value of . or .. in the path, which URL parsing would resolve to another resource", () => {
    const url = "https://api.vendor.example/v1/users/{{userId}}";
    for (const userId of ["..", "."]) {
      const r = renderUrl(url, { userId });
      expect(r).toEqual({ error: 'URL template {{userId}} rendered "." or "..", which would change the URL\'s path: not sent' });
    }
    // Beside the template's own text a value can make a dot segment: refused too.
    expect(renderUrl("https://api.vendor.example/v1/users/.{{a}}", { a: "." })).toHaveProperty("error");
    // In the query, or as part of a segment, a dot is only text.
    expect(renderUrl("https://api.vendor.example/v1/u?id={{userId}}", { userId: ".." })).toEqual({
      url: "https://api.vendor.example/v1/u?id=..",
    });
    expect(renderUrl("https://api.vendor.example/v1/users/{{userId}}", { userId: "..a" })).toEqual({
      url: "https://api.vendor.example/v1/users/..a",
    });
  });

  it("never renders a URL that resolves outside the configured path (generated values)", () => {
    const base = "https://api.vendor.example/v1/users/";
    fc.assert(
      fc.property(fc.array(fc.constantFrom(".", "..", "%2e", "/", "a", "?", "#", "%", "\\"), { minLength: 1, maxLength: 6 }), (parts) => {
        const r = renderUrl(`${base}{{a}}/{{b}}`, { a: parts.join(""), b: parts.reverse().join("") });
        if ("url" in r) expect(new URL(r.url).href.startsWith(base)).toBe(true);
      }),
      { seed: 47, numRuns: 2000 },
    );
  });

  it("leaves a URL without templates as it is", () => {
    expect(renderUrl("https://api.example.com/hook?a=%20", event)).toEqual({ url: "https://api.example.com/hook?a=%20" });
  });
});
