import { apiRoute } from "@/lib/api/api-route";
import { renameWorkspace } from "@/lib/auth/account";
import { accountEndpoints } from "@/lib/auth/contract";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute(accountEndpoints.renameWorkspace, async ({ principal, actor, body }) =>
  renameWorkspace({ workspaceId: principal.workspaceId, actor, name: body.name }),
);
