"use client";

import { plural, TimeAgo } from "@/components/ui/format";
import { ErrorNote, Spinner } from "@/components/ui/card";
import type { DestinationDto } from "@/lib/destinations/contract";
import { useDestinationHealth } from "./hooks";

/**
 * A destination's backlog (docs/webhooks.md#rate-limits): its pending deliveries and when the oldest
 * was made, from GET /api/destinations/:id/health (refreshed every 15 s), with its rate limit beside it.
 */
export function Backlog({ destination }: { destination: Pick<DestinationDto, "id" | "rateLimit"> }) {
  const q = useDestinationHealth(destination.id);
  const { perSecond, concurrency } = destination.rateLimit;
  const limit = [
    perSecond !== null ? `${perSecond.toLocaleString("en-US")} a second` : "",
    concurrency !== null ? `${concurrency} at once` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <div className="space-y-1 text-sm" aria-live="polite">
      {q.isPending ? (
        <Spinner label="Counting pending deliveries…" />
      ) : q.isError ? (
        <ErrorNote error={q.error} />
      ) : q.data.backlog.pending === 0 ? (
        <p className="text-slate-700">Nothing pending.</p>
      ) : (
        <p className="text-slate-700" data-testid="backlog">
          {plural(q.data.backlog.pending, "delivery", "deliveries")} pending
          {q.data.backlog.oldestPendingAt ? (
            <>
              , the oldest made <TimeAgo iso={q.data.backlog.oldestPendingAt} />
            </>
          ) : null}
          .
        </p>
      )}
      <p className="text-xs text-slate-500">{limit ? `Rate limit: ${limit}; deliveries over it wait their turn.` : "No rate limit."}</p>
    </div>
  );
}
