import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { rotateDestinationSecret } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

// The new secret is in this answer only (docs/signing.md#secret-rotation): never cached.
export const POST = apiRoute(destinationEndpoints.rotateSecret, async ({ principal, actor, params, body }) => {
  const rotated = await rotateDestinationSecret({ workspaceId: principal.workspaceId, actor, id: params.id, input: body });
  return Response.json(rotated, { headers: { "cache-control": "no-store" } });
});
