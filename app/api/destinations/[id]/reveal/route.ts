import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { revealDestinationSecret } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

// Revealing a write-only value is its own call (docs/signing.md#secrets); the answer is never cached.
export const POST = apiRoute(destinationEndpoints.reveal, async ({ principal, actor, params, body }) => {
  // Admins and owners only, by the endpoint's access; the reveal is in the audit log (docs/management-api.md#audit-log).
  const revealed = await revealDestinationSecret({ workspaceId: principal.workspaceId, actor, id: params.id, which: body });
  return Response.json(revealed, { headers: { "cache-control": "no-store" } });
});
