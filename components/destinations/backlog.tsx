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
      {q.data && q.data.heldKeys.length > 0 ? (
        <div>
          <p className="text-slate-700">
            {plural(q.data.heldKeys.length, "user")} with messages held behind an earlier one of theirs (per-user ordering):
          </p>
          <ul className="text-xs text-slate-600" aria-label="Held users" data-testid="held-keys">
            {q.data.heldKeys.map((k) => (
              <li key={k.key} className="break-all">
                <bdi className="font-mono">{k.key}</bdi>: {plural(k.held, "message")} held since <TimeAgo iso={k.since} />
                {k.heldBy ? (
                  <>
                    , behind <code>{k.heldBy}</code>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="text-xs text-slate-500">{limit ? `Rate limit: ${limit}; deliveries over it wait their turn.` : "No rate limit."}</p>
    </div>
  );
}
