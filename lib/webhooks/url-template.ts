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

// `.` and `..` (also written %2e) as a whole path segment: URL parsing resolves them, moving the request up the path.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const named = (paths: string[]) => paths.map((p) => `{{${p}}}`).join(", ");

/**
 * The URL for one event: each template replaced by its value, percent-encoded (encodeURIComponent,
 * so `/`, `?`, `#` and `@` in a value cannot change the URL's structure). A template whose value is
 * absent, null or "" gives an error instead: the request is not sent to a half-built URL. Nor is
 * one whose value is `.` or `..`, which percent-encoding leaves as they are and URL parsing would
 * resolve (`/v1/users/{{userId}}` with `..` is `/v1/`): the request, with the destination's headers,
 * would go to another resource than the one configured (docs/request-shape.md#url-templates).
 */
export function renderUrl(template: string, event: unknown): RenderedUrl {
  if (!hasTemplate(template)) return { url: template };
  const paths = [...new Set(templatePaths(template))];
  const values = paths.map((p) => renderTemplate(`{{${p}}}`, event));
  const missing = paths.filter((_, i) => values[i] === "");
  if (missing.length > 0) return { error: `URL template ${named(missing)} rendered empty for this event: not sent` };
  const end = originEnd(template);
  const inPath = new Set(templatePaths(template.slice(end).split(/[?#]/, 1)[0]));
  const dots = paths.filter((p, i) => inPath.has(p) && (values[i] === "." || values[i] === ".."));
  if (dots.length > 0) return { error: `URL template ${named(dots)} rendered "." or "..", which would change the URL's path: not sent` };
  const url = renderTemplate(template, event, encodeURIComponent);
  // Belt and braces: encoding keeps the origin, and it must be the one saved.
  if (url.slice(0, end) !== template.slice(0, end)) return { error: "URL template changed the host: not sent" };
  // Values side by side (`{{a}}{{b}}`) can still make a dot segment: no rendered path segment may be one.
  const path = url.slice(end).split(/[?#]/, 1)[0];
  if (path.split("/").some((segment) => DOT_SEGMENT.test(segment)))
    return { error: 'URL template rendered a "." or ".." path segment, which would change the URL\'s path: not sent' };
  return { url };
}
