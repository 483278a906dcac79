import { NextResponse } from "next/server";
import { CSRF_COOKIE, SESSION_COOKIE, type NewSession } from "../auth/sessions";

function isHttps(req: Request): boolean {
  return new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";
}

/** The session cookie is httpOnly; the CSRF cookie is readable by the dashboard's own scripts. */
export function withSessionCookies(res: NextResponse, req: Request, s: NewSession): NextResponse {
  const secure = isHttps(req);
  res.cookies.set(SESSION_COOKIE, s.token, { httpOnly: true, sameSite: "lax", secure, path: "/", expires: s.expiresAt });
  res.cookies.set(CSRF_COOKIE, s.csrfToken, { httpOnly: false, sameSite: "strict", secure, path: "/", expires: s.expiresAt });
  return res;
}

export function clearSessionCookies(res: NextResponse): NextResponse {
  res.cookies.set(SESSION_COOKIE, "", { path: "/", maxAge: 0 });
  res.cookies.set(CSRF_COOKIE, "", { path: "/", maxAge: 0 });
  return res;
}
