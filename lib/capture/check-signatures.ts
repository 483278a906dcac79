import "server-only";
import { loadSigningSettings } from "../destinations/destinations";
import { pool } from "../platform/db";
import type { SignatureCheckDto } from "./contract";
import { loadCapturedRequest } from "./requests";
import { verifyStandardWebhook, verifyXSignature } from "./verify";

/**
 * The capture page's signature check (docs/dashboard.md#capture-urls): a captured request's
 * signatures, checked on the server with a destination's write-only secrets, which never leave it.
 * Against the destination asked for, or, without one, the destination that sent the request: the
 * one its webhook-id names (msg_<message> or batch_<batch>, this workspace's), else a destination
 * whose URLs name this capture URL; when several could have, the first whose signature verifies.
 * A request that names none (a test-send here from a destination without Standard Webhooks has no
 * webhook-id) is checked against the workspace's signing destinations, newest first: the one whose
 * secret verifies it sent it.
 * Bin, request and destination must all be the workspace's own (404 otherwise).
 */
export async function checkCapturedSignatures(opts: {
  workspaceId: string;
  binId: string;
  requestId: string;
  destinationId?: string;
}): Promise<SignatureCheckDto> {
  const { row } = await loadCapturedRequest(opts);
  const input = { headers: row.headers, body: row.body, truncated: row.truncated };
  if (opts.destinationId) return { ...(await checkAgainst(opts.workspaceId, opts.destinationId, input)), checkedAgainst: "chosen" };
  const senders = await sendersOf(opts.workspaceId, opts.binId, row.headers["webhook-id"]);
  let first: Omit<SignatureCheckDto, "checkedAgainst"> | null = null;
  for (const id of senders) {
    const check = await checkAgainst(opts.workspaceId, id, input);
    if (check.xSignature.state === "valid" || check.standardWebhooks.state === "valid") return { ...check, checkedAgainst: "sender" };
    first ??= check;
  }
  if (first) return { ...first, checkedAgainst: "sender" };
  if (row.headers["x-signature"] || row.headers["webhook-signature"]) {
    for (const id of await signingDestinations(opts.workspaceId)) {
      const check = await checkAgainst(opts.workspaceId, id, input);
      if (check.xSignature.state === "valid" || check.standardWebhooks.state === "valid") return { ...check, checkedAgainst: "sender" };
    }
  }
  const none = {
    state: "unverifiable" as const,
    detail: "No destination of this workspace sends to this capture URL: choose one to check against",
  };
  return { destinationId: null, destinationName: null, xSignature: none, standardWebhooks: none, checkedAgainst: "none" };
}

type Input = { headers: Record<string, string>; body: Uint8Array; truncated: boolean };

async function checkAgainst(workspaceId: string, destinationId: string, input: Input): Promise<Omit<SignatureCheckDto, "checkedAgainst">> {
  const dest = await loadSigningSettings({ workspaceId, id: destinationId });
  // A rotation's old secret still signs until its grace period ends (docs/signing.md#secret-rotation).
  const inGrace = (secret: string | null | undefined, end: Date | null | undefined) =>
    secret && end && end.getTime() > Date.now() ? secret : null;
  return {
    destinationId: dest.id,
    destinationName: dest.name,
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

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The workspace's destinations that may have sent a captured request, most likely first. */
async function sendersOf(workspaceId: string, binId: string, webhookId: string | undefined): Promise<string[]> {
  const ids: string[] = [];
  const message = webhookId?.match(new RegExp(`^msg_(${UUID})$`))?.[1];
  const batch = webhookId?.match(new RegExp(`^batch_(${UUID})$`))?.[1];
  if (message || batch) {
    const { rows } = await pool().query<{ id: string }>(
      message
        ? "SELECT DISTINCT destination_id AS id FROM deliveries WHERE message_row_id = $1 AND workspace_id = $2"
        : "SELECT destination_id AS id FROM delivery_batches WHERE id = $1 AND destination_id IN (SELECT id FROM destinations WHERE workspace_id = $2)",
      [message ?? batch, workspaceId],
    );
    ids.push(...rows.map((r) => r.id));
  }
  const { rows } = await pool().query<{ id: string }>(
    "SELECT id FROM destinations WHERE workspace_id = $1 AND EXISTS (SELECT 1 FROM unnest(urls) u WHERE u LIKE '%/c/' || $2 || '%') ORDER BY created_at",
    [workspaceId, binId],
  );
  for (const r of rows) if (!ids.includes(r.id)) ids.push(r.id);
  return ids;
}

/** The workspace's destinations with a signing secret, newest first (at most 200: a check is one page's click). */
async function signingDestinations(workspaceId: string): Promise<string[]> {
  const { rows } = await pool().query<{ id: string }>(
    "SELECT id FROM destinations WHERE workspace_id = $1 AND (shared_secret IS NOT NULL OR standard_secret IS NOT NULL) ORDER BY created_at DESC LIMIT 200",
    [workspaceId],
  );
  return rows.map((r) => r.id);
}
