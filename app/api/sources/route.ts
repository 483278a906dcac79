import { apiRoute, parseBody } from "@/lib/http/route";
import { createSourceSchema } from "@/lib/sources/schemas";
import { createSource, listSources } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ principal }) => ({ sources: await listSources({ workspaceId: principal.workspaceId }) }));

export const POST = apiRoute(
  async ({ req, principal }) => createSource({ workspaceId: principal.workspaceId, input: await parseBody(req, createSourceSchema) }),
  { status: 201 },
);
