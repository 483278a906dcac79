import { apiRoute } from "@/lib/api/api-route";
import { createOwnWorkspace } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const POST = apiRoute(accountEndpoints.createOwnWorkspace, async ({ principal, actor, body }) =>
  createOwnWorkspace(principal, { name: body.name, actor }),
);
