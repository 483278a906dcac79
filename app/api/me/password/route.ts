import { apiRoute } from "@/lib/api/api-route";
import { changePassword } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const POST = apiRoute(accountEndpoints.changePassword, async ({ principal, actor, body }) => changePassword(principal, body, actor));
