import { NextResponse } from "next/server";
import { SESSION_COOKIE, destroySession } from "@/lib/auth/sessions";
import { clearSessionCookies } from "@/lib/http/cookies";
import { assertSameOrigin, readCookie } from "@/lib/http/principal";
import { publicRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const POST = publicRoute(async ({ req }) => {
  assertSameOrigin(req);
  await destroySession(readCookie(req, SESSION_COOKIE));
  return clearSessionCookies(NextResponse.json({ ok: true }));
});
