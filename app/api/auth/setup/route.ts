import { NextResponse } from "next/server";
import { setupOwner } from "@/lib/auth/accounts";
import { authEndpoints } from "@/lib/auth/contract";
import { withSessionCookies } from "@/lib/api/session-cookies";
import { assertSameOrigin } from "@/lib/api/principal";
import { clientAddress } from "@/lib/api/client-address";
import { publicRoute } from "@/lib/api/api-route";

export const dynamic = "force-dynamic";

/** First run only, with the setup code: creates the owner and the first workspace, and logs them in. */
export const POST = publicRoute(authEndpoints.setup, async ({ req, body }) => {
  assertSameOrigin(req);
  const session = await setupOwner(body, { address: clientAddress(req) });
  return withSessionCookies(NextResponse.json({ ok: true }, { status: 201 }), req, session);
});
