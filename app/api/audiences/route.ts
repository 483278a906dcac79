import { apiRoute, parseBody } from "@/lib/http/route";
import { createAudienceSchema } from "@/lib/audiences/schemas";
import { createAudience, listAudiences } from "@/lib/audiences/audiences";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ principal }) => ({ audiences: await listAudiences({ workspaceId: principal.workspaceId }) }));

export const POST = apiRoute(
  async ({ req, principal }) => createAudience({ workspaceId: principal.workspaceId, input: await parseBody(req, createAudienceSchema) }),
  { status: 201 },
);
