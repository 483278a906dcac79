import { NextResponse, type NextRequest } from "next/server";
import { isHttpsRequest, newNonce, pageSecurityHeaders } from "@/lib/api/security-headers";
import { env } from "@/lib/platform/env";

/** Pages anyone may open: logging in, the first-run setup, and invite links (docs/management-api.md#invitations). */
const PUBLIC_PAGES = /^\/(login|setup|invite)(\/|$)/;

/**
 * Runs before every page (not the APIs, the capture receiver or static assets): sends the pages'
 * security headers with a fresh CSP nonce, which Next reads from the request's CSP header and puts
 * on its own scripts (docs/dashboard.md#security-headers); and, as a cheap first gate, sends a
 * dashboard visit without a session cookie to the login page, remembering where it was going. The
 * session itself is verified by the dashboard layout and every API route.
 */
export function proxy(req: NextRequest) {
  const https = isHttpsRequest({
    publicUrl: env().EVENTRAIL_PUBLIC_URL,
    requestUrl: req.url,
    forwardedProto: req.headers.get("x-forwarded-proto"),
  });
  const headers = pageSecurityHeaders({ nonce: newNonce(), https, dev: env().NODE_ENV === "development" });
  let res: NextResponse;
  if (!PUBLIC_PAGES.test(req.nextUrl.pathname) && !req.cookies.get("er_session")) {
    const url = req.nextUrl.clone();
    url.pathname = "/login";
    url.search = `?next=${encodeURIComponent(req.nextUrl.pathname + req.nextUrl.search)}`;
    res = NextResponse.redirect(url);
  } else {
    const forwarded = new Headers(req.headers);
    forwarded.set("content-security-policy", headers["content-security-policy"]);
    res = NextResponse.next({ request: { headers: forwarded } });
  }
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

export const config = {
  // Every page; not the APIs (they authenticate themselves and answer JSON), tracking, capture, metrics, assets.
  matcher: ["/((?!api/|v1/|c/|metrics|_next/static|_next/image|favicon|icon).*)"],
};
