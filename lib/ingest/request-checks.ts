import "server-only";
import net from "node:net";

/**
 * What the edge checks of a request before it uses its Host or passes its target on
 * (docs/edge.md#hosts-and-targets). Each check answers the reason a request is refused 400, or
 * null. Node's parser has framed the request; these decide whether its Host names a host and its
 * target is one the web app can take, so that no client-supplied value reaches undici, URL or the
 * settings document in a shape that fails there.
 */

/** A host name (RFC 1123 labels; `_` as DNS allows it), an IPv4 address or a bracketed IPv6 literal, and an optional port. */
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?))(?::([0-9]{1,5}))?$/;

export function hostProblem(host: string | string[] | undefined): string | null {
  if (typeof host !== "string" || host === "") return "The request has no Host header";
  const m = HOST.exec(host);
  if (!m) return "The Host header is not a host name or address, with an optional port";
  const [, ipv6, name, port] = m;
  if (ipv6 !== undefined && !net.isIPv6(ipv6)) return "The Host header's bracketed address is not an IPv6 address";
  if (name !== undefined) {
    if (name.length > 253) return "The Host header's name is longer than 253 characters";
    const labels = name.replace(/\.$/, "").split(".");
    if (labels.some((l) => l.length === 0 || l.length > 63)) return "The Host header's name has an empty or over-long label";
  }
  if (port !== undefined && Number(port) > 65_535) return "The Host header's port is over 65535";
  return null;
}

/** Whether a string is valid percent-encoded UTF-8 (the platform's decoder decides). */
function decodes(s: string): boolean {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** RFC 3986's unreserved characters: an escape of one of them means the character itself (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * A path in the one form every parser reads alike (RFC 3986 §6.2.2): escapes of unreserved
 * characters decoded, the others' hex digits upper-case, `.` segments and empty segments removed.
 * A `..` segment, however spelled, has no such form: null. The edge classifies a request by this
 * path and passes this path on, so no lane is taken under another path's name.
 */
export function canonicalPath(path: string): string | null {
  const out: string[] = [];
  const segments = path.split("/").slice(1);
  for (const [i, raw] of segments.entries()) {
    const segment = raw.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
      const c = String.fromCharCode(Number.parseInt(hex, 16));
      return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
    });
    if (segment === "..") return null;
    // `.` and empty segments name nothing; a last one keeps the trailing slash it stands for.
    if (segment === "." || segment === "") {
      if (i === segments.length - 1 && out.length > 0) out.push("");
      continue;
    }
    out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** The path (canonical: canonicalPath) and query of a target the edge passes on, or why it cannot be passed on. */
export function checkTarget(url: string): { path: string; query: string } | { problem: string } {
  const q = url.indexOf("?");
  const sent = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  // URL parsers read `\` as `/`: `/\evil.example` would name another host.
  if (sent.includes("\\")) return { problem: "The path contains a backslash" };
  if (!decodes(sent)) return { problem: "The path has a malformed % escape" };
  if (!decodes(query)) return { problem: "The query string has a malformed % escape" };
  if (!sent.startsWith("/")) return { problem: "The path does not start with /" };
  const path = canonicalPath(sent);
  if (path === null) return { problem: "The path contains a .. segment" };
  return { path, query };
}
