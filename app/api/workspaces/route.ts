import { apiRoute } from "@/lib/api/api-route";
import { authEndpoints } from "@/lib/auth/contract";
import { createWorkspace } from "@/lib/auth/workspaces";

export const dynamic = "force-dynamic";

/** Operator-only (EVENTRAIL_ADMIN_TOKEN; apiRoute answers 403 to anyone else): a workspace and its first API token. */
export const POST = apiRoute(authEndpoints.createWorkspace, async ({ body, actor }) => createWorkspace({ ...body, actor }));
