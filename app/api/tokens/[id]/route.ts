import { apiRoute } from "@/lib/http/route";
import { revokeApiToken } from "@/lib/auth/tokens";

export const dynamic = "force-dynamic";

/** Revokes the token: it answers 401 from then on. */
export const DELETE = apiRoute<{ id: string }>(async ({ principal, params }) =>
  revokeApiToken({ workspaceId: principal.workspaceId, id: params.id }),
);
