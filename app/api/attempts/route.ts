import { apiRoute, parseQuery } from "@/lib/http/route";
import { attemptListQuerySchema } from "@/lib/delivery/attempt-schemas";
import { listAttempts } from "@/lib/delivery/attempts";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ req, principal }) => listAttempts({ workspaceId: principal.workspaceId, query: parseQuery(req, attemptListQuerySchema) }));
