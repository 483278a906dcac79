/**
 * URL templates (docs/request-shape.md#url-templates): `{{path.to.field}}` in a URL's path and
 * query, filled per event with the field's value percent-encoded. The scheme, host and port are
 * fixed at save, so a template can never point a request at another host; the SSRF guard checks
 * each rendered URL's connection as it checks any other (post.ts). Pure, and safe in the browser.
 */
import { renderTemplate, templatePaths } from "./mapping";

export const hasTemplate = (url: string): boolean => url.includes("{{");

/** Where a URL's origin ends: the first `/`, `?` or `#` after `scheme://`; -1 when it has none. */
function originEnd(url: string): number {
  const start = url.indexOf("://");
  if (start < 0) return -1;
  for (let i = start + 3; i < url.length; i++) if (url[i] === "/" || url[i] === "?" || url[i] === "#") return i;
  return -1;
}

/** Why a URL's templates cannot be used, or null when it has none or they are all in its path and query. */
export function urlTemplateProblem(url: string): string | null {
  if (!hasTemplate(url)) return null;
  const first = url.indexOf("{{");
  const end = originEnd(url);
  if (end < 0 || first < end) return "Templates go in the path or query only: the scheme, host and port are fixed when you save";
  const hash = url.indexOf("#");
  if (hash >= 0 && url.indexOf("{{", hash) >= 0) return "Templates go in the path or query only, not after #";
  const open = (url.match(/\{\{/g) ?? []).length;
  const paths = templatePaths(url);
  if (paths.length !== open || (url.match(/\}\}/g) ?? []).length < open)
    return "A template is not closed: write {{field}}, like {{userId}}";
  if (paths.some((p) => p === "" || /\s/.test(p))) return "A template names one field, like {{userId}} or {{properties.plan}}";
  return null;
}

export type RenderedUrl = { url: string } | { error: string };

/**
 * The URL for one event: each template replaced by its value, percent-encoded (encodeURIComponent,
 * so `/`, `?`, `#` and `@` in a value cannot change the URL's structure). A template whose value is
 * absent, null or "" gives an error instead: the request is not sent to a half-built URL.
 */
export function renderUrl(template: string, event: unknown): RenderedUrl {
  if (!hasTemplate(template)) return { url: template };
  const missing = [...new Set(templatePaths(template).filter((p) => renderTemplate(`{{${p}}}`, event) === ""))];
  if (missing.length > 0)
    return { error: `URL template ${missing.map((p) => `{{${p}}}`).join(", ")} rendered empty for this event: not sent` };
  const url = renderTemplate(template, event, encodeURIComponent);
  // Belt and braces: encoding keeps the origin, and it must be the one saved.
  const end = originEnd(template);
  if (url.slice(0, end) !== template.slice(0, end)) return { error: "URL template changed the host: not sent" };
  return { url };
}
