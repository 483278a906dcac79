import { NextResponse } from "next/server";
import { authEndpoints } from "@/lib/auth/contract";
import { SESSION_COOKIE, destroySession } from "@/lib/auth/sessions";
import { clearSessionCookies } from "@/lib/api/session-cookies";
import { assertSameOrigin, readCookie } from "@/lib/api/principal";
import { publicRoute } from "@/lib/api/api-route";

export const dynamic = "force-dynamic";

export const POST = publicRoute(authEndpoints.logout, async ({ req }) => {
  assertSameOrigin(req);
  await destroySession(readCookie(req, SESSION_COOKIE));
  return clearSessionCookies(NextResponse.json({ ok: true }), req);
});
