import "server-only";
/**
 * Who gets what in one sync — pure, so the audience rules are unit-tested without a database.
 *
 * A destination that never received this audience's membership (first sync after creation, newly
 * connected, or the property was renamed) gets every member with `true`. A destination that did
 * gets only the changes since the previous sync: `true` for users who entered, `false` for users
 * who left; none when nothing changed.
 */
export type SyncDestination = { id: string; syncedAt: Date | null };

export type SyncPlan = {
  /** destinations that get the full membership */
  full: string[];
  /** destinations that get entered/exited only */
  changes: string[];
  /** identify deliveries to enqueue */
  total: number;
};

export function planAudienceSync(destinations: SyncDestination[], counts: { members: number; entered: number; exited: number }): SyncPlan {
  const full = destinations.filter((d) => d.syncedAt === null).map((d) => d.id);
  const changes = destinations.filter((d) => d.syncedAt !== null).map((d) => d.id);
  return { full, changes, total: full.length * counts.members + changes.length * (counts.entered + counts.exited) };
}

/**
 * A user's place in one sync's diff: `entered` and `exited` changed since the previous sync;
 * `stayed` members are listed only when some destination gets the full membership.
 */
export type MemberChange = "entered" | "exited" | "stayed";

/** The destinations that get an identify for a user in `change`: `false` only to those that had the audience. */
export function destinationsFor(plan: Pick<SyncPlan, "full" | "changes">, change: MemberChange): string[] {
  if (change === "entered") return [...plan.changes, ...plan.full];
  if (change === "exited") return plan.changes;
  return plan.full;
}

/** Chunk boundaries `[from, to)` over `count` rows: each chunk commits its messages, deliveries and membership together. */
export function chunkRanges(count: number, size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let from = 0; from < count; from += size) out.push([from, Math.min(count, from + size)]);
  return out;
}
