import { NextResponse } from "next/server";
import { publicRoute } from "@/lib/api/api-route";
import { clientAddress } from "@/lib/api/client-address";
import { assertSameOrigin, readCookie } from "@/lib/api/principal";
import { withSessionCookies } from "@/lib/api/session-cookies";
import { SESSION_COOKIE, findSession } from "@/lib/auth/sessions";
import { memberEndpoints } from "@/lib/members/contract";
import { acceptInvitation } from "@/lib/members/invitations";

export const dynamic = "force-dynamic";

/** Public like login: the invitee may have no account yet. Logged in, the session's account joins. */
export const POST = publicRoute(memberEndpoints.acceptInvitation, async ({ req, body }) => {
  assertSameOrigin(req);
  const session = await findSession(readCookie(req, SESSION_COOKIE));
  const created = await acceptInvitation({
    input: body,
    sessionUser: session ? { userId: session.userId, email: session.email } : null,
    address: clientAddress(req),
    userAgent: req.headers.get("user-agent"),
  });
  return withSessionCookies(NextResponse.json({ ok: true }), req, created);
});
