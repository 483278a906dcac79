import { apiRoute } from "@/lib/api/api-route";
import { getMe } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(accountEndpoints.me, async ({ principal }) => getMe(principal));
