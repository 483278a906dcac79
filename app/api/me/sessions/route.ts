import { apiRoute } from "@/lib/api/api-route";
import { listSessions, signOutOtherSessions } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(accountEndpoints.sessions, async ({ principal }) => ({ sessions: await listSessions(principal) }));

export const DELETE = apiRoute(accountEndpoints.signOutOthers, async ({ principal, actor }) => signOutOtherSessions(principal, actor));
