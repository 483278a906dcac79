import { apiRoute, parseBody } from "@/lib/http/route";
import { destinationInputSchema } from "@/lib/destinations/schemas";
import { createDestination, listDestinations } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ principal }) => ({ destinations: await listDestinations({ workspaceId: principal.workspaceId }) }));

export const POST = apiRoute(
  async ({ req, principal }) => createDestination({ workspaceId: principal.workspaceId, input: await parseBody(req, destinationInputSchema) }),
  { status: 201 },
);
