import { apiRoute } from "@/lib/http/route";
import { getAttempt } from "@/lib/delivery/attempts";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ principal, params }) => getAttempt({ workspaceId: principal.workspaceId, id: params.id }));
