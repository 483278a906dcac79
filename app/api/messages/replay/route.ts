import { apiRoute, parseBody } from "@/lib/http/route";
import { replayMessages, replaySchema } from "@/lib/delivery/replay";

export const dynamic = "force-dynamic";

export const POST = apiRoute(async ({ req, principal }) => replayMessages({ workspaceId: principal.workspaceId, input: await parseBody(req, replaySchema) }));
