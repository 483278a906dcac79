import { apiRoute } from "@/lib/http/route";
import { getMessageDetail } from "@/lib/delivery/messages";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ principal, params }) => getMessageDetail({ workspaceId: principal.workspaceId, id: params.id }));
