import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { revealDestinationSecret } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

// Revealing a write-only value is its own call (docs/webhooks.md#secrets); the answer is never cached.
export const POST = apiRoute(destinationEndpoints.reveal, async ({ principal, params, body }) => {
  const revealed = await revealDestinationSecret({ workspaceId: principal.workspaceId, id: params.id, which: body });
  // audit: record the reveal here once the audit log exists (teams issue; PRODUCT.md §4): who
  // (principal.kind, principal.userId / tokenId), which destination (params.id), which value (body), when.
  return Response.json(revealed, { headers: { "cache-control": "no-store" } });
});
