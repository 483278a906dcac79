import { NextResponse } from "next/server";
import { login } from "@/lib/auth/accounts";
import { authEndpoints } from "@/lib/auth/contract";
import { withSessionCookies } from "@/lib/api/session-cookies";
import { assertSameOrigin } from "@/lib/api/principal";
import { clientAddress } from "@/lib/api/client-address";
import { publicRoute } from "@/lib/api/api-route";

export const dynamic = "force-dynamic";

export const POST = publicRoute(authEndpoints.login, async ({ req, body }) => {
  assertSameOrigin(req);
  const session = await login(body, { address: clientAddress(req), userAgent: req.headers.get("user-agent") });
  return withSessionCookies(NextResponse.json({ ok: true }), req, session);
});
