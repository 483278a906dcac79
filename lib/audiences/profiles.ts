import "server-only";
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

export type ProfileChange = { userId: string; traits: Record<string, unknown>; anonymousIds: string[]; at: string };
export type IdentityLinkChange = { anonymousId: string; userId: string };

const time = (t: string) => {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : ms;
};

/**
 * What a batch changes, one entry per user and per anonymousId (a single upsert may touch a row
 * only once). Within the batch the newest identify wins trait by trait; across batches the SQL
 * compares timestamps the same way. identify joins its anonymousId to its userId; alias joins
 * previousId to userId (the pre-login id becomes one of the user's anonymous ids). An identify
 * without a userId changes nothing: profiles are per known user.
 */
export function profileChanges(messages: ProfileInput[]): { profiles: ProfileChange[]; links: IdentityLinkChange[] } {
  const relevant = messages
    .filter((m) => (m.type === "identify" || m.type === "alias") && m.userId)
    .map((m, i) => ({ m, i }))
    // Oldest first, arrival order breaking ties, so later entries overwrite earlier ones.
    .sort((a, b) => time(a.m.timestamp) - time(b.m.timestamp) || a.i - b.i)
    .map(({ m }) => m);
  const profiles = new Map<string, ProfileChange>();
  const links = new Map<string, IdentityLinkChange>();
  for (const m of relevant) {
    const userId = m.userId!;
    const p = profiles.get(userId) ?? { userId, traits: {}, anonymousIds: [], at: m.timestamp };
    if (time(m.timestamp) >= time(p.at)) p.at = m.timestamp;
    const anon = m.type === "alias" ? m.previousId : m.anonymousId;
    if (m.type === "identify" && m.traits && typeof m.traits === "object") Object.assign(p.traits, m.traits);
    if (anon && anon !== userId) {
      if (!p.anonymousIds.includes(anon)) p.anonymousIds.push(anon);
      links.set(anon, { anonymousId: anon, userId });
    }
    profiles.set(userId, p);
  }
  return { profiles: [...profiles.values()], links: [...links.values()] };
}

/**
 * Keeps profiles up to date from accepted calls, on the ingest transaction's client: identify
 * traits merged (latest timestamp wins), anonymousId joined to userId by identify and alias.
 * Called once per accepted batch. A batch without identify/alias costs no query at all; otherwise
 * one statement upserts the profiles and, when anonymous ids were joined, one more the links.
 */
export async function updateProfiles(client: pg.PoolClient, opts: { workspaceId: string; messages: ProfileInput[] }): Promise<void> {
  if (!opts.messages.some((m) => m.type === "identify" || m.type === "alias")) return;
  const { profiles, links } = profileChanges(opts.messages);
  if (profiles.length === 0) return;
  // A newer batch's traits overwrite; an older one's (historical import) only fill gaps.
  await client.query(
    `INSERT INTO profiles (id, workspace_id, user_id, anonymous_ids, traits, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, u, ARRAY(SELECT jsonb_array_elements_text(a)), t, now(), at
     FROM unnest($2::text[], $3::jsonb[], $4::jsonb[], $5::timestamptz[]) AS x(u, a, t, at)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET
       traits = CASE WHEN EXCLUDED.updated_at >= profiles.updated_at THEN profiles.traits || EXCLUDED.traits
                     ELSE EXCLUDED.traits || profiles.traits END,
       anonymous_ids = CASE WHEN EXCLUDED.anonymous_ids <@ profiles.anonymous_ids THEN profiles.anonymous_ids
                            ELSE ARRAY(SELECT DISTINCT unnest(profiles.anonymous_ids || EXCLUDED.anonymous_ids)) END,
       updated_at = greatest(profiles.updated_at, EXCLUDED.updated_at)`,
    [
      opts.workspaceId,
      profiles.map((p) => p.userId),
      profiles.map((p) => JSON.stringify(p.anonymousIds)),
      profiles.map((p) => JSON.stringify(p.traits)),
      profiles.map((p) => p.at),
    ],
  );
  if (links.length === 0) return;
  await client.query(
    `INSERT INTO identity_links (workspace_id, anonymous_id, user_id)
     SELECT $1::uuid, a, u FROM unnest($2::text[], $3::text[]) AS x(a, u)
     ON CONFLICT (workspace_id, anonymous_id) DO UPDATE SET user_id = EXCLUDED.user_id
     WHERE identity_links.user_id IS DISTINCT FROM EXCLUDED.user_id`,
    [opts.workspaceId, links.map((l) => l.anonymousId), links.map((l) => l.userId)],
  );
}
