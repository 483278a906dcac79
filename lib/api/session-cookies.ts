import "server-only";
import type { NextResponse } from "next/server";
import { CSRF_COOKIE, SESSION_COOKIE, type NewSession } from "../auth/sessions";
import { env } from "../platform/env";
import { isHttpsRequest } from "./security-headers";

/** docs/management-api.md#sessions: Secure cookies over https. */
export const isHttps = (req: Request): boolean =>
  isHttpsRequest({ publicUrl: env().EVENTRAIL_PUBLIC_URL, requestUrl: req.url, forwardedProto: req.headers.get("x-forwarded-proto") });

/** The session cookie is httpOnly; the CSRF cookie is readable by the dashboard's own scripts. Both are Secure over https. */
export function withSessionCookies(res: NextResponse, req: Request, s: NewSession): NextResponse {
  const secure = isHttps(req);
  res.cookies.set(SESSION_COOKIE, s.token, { httpOnly: true, sameSite: "lax", secure, path: "/", expires: s.expiresAt });
  res.cookies.set(CSRF_COOKIE, s.csrfToken, { httpOnly: false, sameSite: "strict", secure, path: "/", expires: s.expiresAt });
  return res;
}

export function clearSessionCookies(res: NextResponse, req: Request): NextResponse {
  const secure = isHttps(req);
  res.cookies.set(SESSION_COOKIE, "", { httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: 0 });
  res.cookies.set(CSRF_COOKIE, "", { httpOnly: false, sameSite: "strict", secure, path: "/", maxAge: 0 });
  return res;
}
