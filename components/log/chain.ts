import { plural } from "@/components/ui/format";
import type { AttemptDto } from "@/lib/request-log/contract";

/** What grouping needs of an attempt (its delivery tells a replay that is a delivery of its own apart). */
export type ChainAttempt = Pick<AttemptDto, "id" | "destinationId" | "destinationName" | "url" | "attemptNumber" | "startedAt"> & {
  deliveryId?: string | null;
};

/** One sending of the message to one URL: the first delivery (replay 0) or replay n, with its attempts in order. */
export type AttemptRun<T> = { replay: number; startedAt: string; attempts: T[] };

/** A destination's URL and every attempt the message made to it, split into runs. */
export type AttemptGroup<T> = {
  key: string;
  destinationId: string;
  destinationName: string | null;
  url: string;
  count: number;
  runs: AttemptRun<T>[];
};

/**
 * A message's attempts (oldest first) grouped by destination and URL, in order of first attempt. In a
 * group, a replay starts a new run: it belongs to another delivery (a replay is a delivery linked to
 * the one it re-sends, numbered by `replayNumbers`), or its attempt numbers start again at 1 — either
 * way it is told apart from the retries before it.
 */
export function groupAttemptChain<T extends ChainAttempt>(
  attempts: T[],
  replayNumbers: Map<string, number> = new Map(),
): AttemptGroup<T>[] {
  const groups = new Map<string, AttemptGroup<T>>();
  for (const a of attempts) {
    const key = `${a.destinationId} ${a.url}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, destinationId: a.destinationId, destinationName: a.destinationName, url: a.url, count: 0, runs: [] };
      groups.set(key, group);
    }
    const run = group.runs.at(-1);
    const last = run?.attempts.at(-1);
    const otherDelivery = last?.deliveryId != null && a.deliveryId != null && last.deliveryId !== a.deliveryId;
    if (!run || !last || a.attemptNumber <= last.attemptNumber || otherDelivery) {
      const numbered = a.deliveryId != null ? replayNumbers.get(a.deliveryId) : undefined;
      group.runs.push({ replay: numbered ?? group.runs.length, startedAt: a.startedAt, attempts: [a] });
    } else {
      run.attempts.push(a);
    }
    group.count++;
  }
  return [...groups.values()];
}

/** What a replay came to, once its deliveries settle: "Replaying…" turns into the result. */
export function replayOutcome(latest: { state: "pending" | "delivered" | "failed"; replayNumber: number }[], replayed: number): string {
  const replays = latest.filter((d) => d.replayNumber > 0);
  if (replays.length === 0 || replays.some((d) => d.state === "pending")) return `Replaying to ${plural(replayed, "destination")}…`;
  const delivered = replays.filter((d) => d.state === "delivered").length;
  const failed = replays.length - delivered;
  return `Replayed: ${plural(delivered, "destination")} delivered${failed ? `, ${failed.toLocaleString("en-US")} failed` : ""}.`;
}
