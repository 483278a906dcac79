import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { SESSION_COOKIE, findSession, type SessionInfo } from "./sessions";
import { needsSetup } from "./accounts";

/**
 * For dashboard pages: the logged-in session, or a redirect to login (or setup on a fresh install).
 * Looked up once per request: the layout and the page's prefetch (app/(dashboard)/prefetch.tsx) share it.
 */
export const requirePageSession = cache(async (): Promise<SessionInfo> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = await findSession(token);
  if (session) return session;
  redirect((await needsSetup()) ? "/setup" : "/login");
});
