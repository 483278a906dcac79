import "server-only";
import { loadSigningSettings } from "../destinations/destinations";
import type { SignatureCheckDto } from "./contract";
import { loadCapturedRequest } from "./requests";
import { verifyStandardWebhook, verifyXSignature } from "./verify";

/**
 * "Check against destination X" on the capture page (docs/dashboard.md#capture-urls): a captured
 * request's signatures, checked on the server with the destination's write-only secrets, which
 * never leave it. Both must be the workspace's own (404 otherwise).
 */
export async function checkCapturedSignatures(opts: {
  workspaceId: string;
  binId: string;
  requestId: string;
  destinationId: string;
}): Promise<SignatureCheckDto> {
  const { row } = await loadCapturedRequest(opts);
  const dest = await loadSigningSettings({ workspaceId: opts.workspaceId, id: opts.destinationId });
  const input = { headers: row.headers, body: row.body, truncated: row.truncated };
  // A rotation's old secret still signs until its grace period ends (docs/signing.md#secret-rotation).
  const inGrace = (secret: string | null | undefined, end: Date | null | undefined) =>
    secret && end && end.getTime() > Date.now() ? secret : null;
  return {
    destinationId: dest.id,
    xSignature: verifyXSignature({
      ...input,
      secret: dest.sharedSecret,
      previousSecret: inGrace(dest.previousSharedSecret, dest.previousSharedSecretExpiresAt),
    }),
    standardWebhooks: verifyStandardWebhook({
      ...input,
      secret: dest.standardSecret,
      previousSecret: inGrace(dest.previousStandardSecret, dest.previousStandardSecretExpiresAt),
    }),
  };
}
