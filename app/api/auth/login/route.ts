import { NextResponse } from "next/server";
import { login } from "@/lib/auth/accounts";
import { credentialsSchema } from "@/lib/auth/schemas";
import { withSessionCookies } from "@/lib/http/cookies";
import { assertSameOrigin } from "@/lib/http/principal";
import { parseBody, publicRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const POST = publicRoute(async ({ req }) => {
  assertSameOrigin(req);
  const session = await login(await parseBody(req, credentialsSchema));
  return withSessionCookies(NextResponse.json({ ok: true }), req, session);
});
