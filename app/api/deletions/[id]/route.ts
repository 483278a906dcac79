import { apiRoute } from "@/lib/http/route";
import { getDeletionRequest } from "@/lib/deletions/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ principal, params }) => getDeletionRequest({ workspaceId: principal.workspaceId, id: params.id }));
