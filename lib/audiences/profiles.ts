import type pg from "pg";

/** The fields of a stored message that profiles are built from. */
export type ProfileInput = {
  type: string;
  userId: string | null;
  anonymousId: string | null;
  previousId?: string | null;
  traits?: Record<string, unknown> | null;
  timestamp: string;
};

/**
 * Keeps profiles up to date from accepted calls, on the ingest transaction's client:
 * identify traits merged (latest wins), anonymousId joined to userId by identify and alias.
 * Called once per accepted batch; it must cost nothing when the batch has no identify/alias.
 * (Placeholder until the audiences work lands.)
 */
export async function updateProfiles(_client: pg.PoolClient, _opts: { workspaceId: string; messages: ProfileInput[] }): Promise<void> {}
