import { apiRoute } from "@/lib/api/api-route";
import { switchWorkspace } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const PUT = apiRoute(accountEndpoints.switchWorkspace, async ({ principal, body }) => switchWorkspace(principal, body.workspaceId));
