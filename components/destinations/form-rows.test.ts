import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { UrlRows } from "./form-rows";
import { warningsByField } from "./form-state";

const message =
  "127.0.0.1 is on a private or loopback network: deliveries to it are refused unless the server sets EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1 (docs/webhooks.md#outbound-safety)";

describe("a save's warnings in the destination form (docs/webhooks.md#outbound-safety)", () => {
  it("shows each warning under the URL it names, linked to that input, and nothing under the others", () => {
    const warnings = warningsByField([{ field: "urls.1", message }]);
    // The rows' "Use a capture URL" creates a capture URL through the query client.
    const html = renderToStaticMarkup(
      createElement(
        QueryClientProvider,
        { client: new QueryClient() },
        createElement(UrlRows, { urls: ["https://a.example/hook", "http://127.0.0.1:4410/x"], errors: {}, warnings, onChange: () => {} }),
      ),
    );
    const doc = html.replace(/&quot;/g, '"');
    expect(doc).toContain(`<p id="url-1-warning"`);
    expect(doc).toMatch(/id="url-1-warning"[^>]*>Saved, but: 127\.0\.0\.1 is on a private[^<]*EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1/);
    // The warned input names its warning (a screen reader reads it) and is where focus goes after saving.
    expect(doc).toMatch(/<input[^>]*id="url-1"[^>]*aria-describedby="url-1-warning"[^>]*data-warned="true"/);
    expect(doc).not.toContain("url-0-warning");
    expect(doc).not.toMatch(/<input[^>]*id="url-0"[^>]*data-warned/);
  });

  it("groups a save's warnings by field, as field errors are", () => {
    expect(warningsByField([])).toEqual({});
    expect(
      warningsByField([
        { field: "urls.0", message: "a" },
        { field: "urls.2", message: "b" },
        { field: "urls.0", message: "c" },
      ]),
    ).toEqual({
      "urls.0": ["a", "c"],
      "urls.2": ["b"],
    });
  });
});
