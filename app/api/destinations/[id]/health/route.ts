import { apiRoute } from "@/lib/http/route";
import { getDestinationHealth } from "@/lib/destinations/endpoint-health";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ principal, params }) => getDestinationHealth({ workspaceId: principal.workspaceId, id: params.id }));
