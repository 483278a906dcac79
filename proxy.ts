import { NextResponse, type NextRequest } from "next/server";

/**
 * Cheap first gate for dashboard pages: no session cookie → the login page, remembering where
 * the user was going. The session itself is verified by the dashboard layout and every API route.
 */
export function proxy(req: NextRequest) {
  if (req.cookies.get("er_session")) return NextResponse.next();
  const url = req.nextUrl.clone();
  url.pathname = "/login";
  url.search = `?next=${encodeURIComponent(req.nextUrl.pathname + req.nextUrl.search)}`;
  return NextResponse.redirect(url);
}

export const config = {
  // Public paths: auth pages, the APIs (they authenticate themselves), tracking, capture, metrics, assets.
  matcher: ["/((?!login|setup|api/|v1/|c/|metrics|_next/|favicon).+)"],
};
