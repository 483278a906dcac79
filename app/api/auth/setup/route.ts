import { NextResponse } from "next/server";
import { setupOwner } from "@/lib/auth/accounts";
import { setupSchema } from "@/lib/auth/schemas";
import { withSessionCookies } from "@/lib/http/cookies";
import { assertSameOrigin } from "@/lib/http/principal";
import { parseBody, publicRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** First run only: creates the owner and the first workspace, and logs them in. */
export const POST = publicRoute(async ({ req }) => {
  assertSameOrigin(req);
  const session = await setupOwner(await parseBody(req, setupSchema));
  return withSessionCookies(NextResponse.json({ ok: true }, { status: 201 }), req, session);
});
