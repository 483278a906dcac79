/**
 * A drill's verdict, from what the client was told, what the database says and what the receivers
 * saw (pure, unit-tested). Lost: accepted by /v1 but neither delivered nor failed at the end, or
 * delivered according to the database but never received (with a 2xx) by any of its receivers.
 */
export type DeliveryRow = { messageId: string; destinationId: string; state: string; lastError: string | null };

export type DrillReport = {
  accepted: number;
  deliveries: number;
  delivered: number;
  failed: number;
  failedReasons: Record<string, number>;
  lost: number;
  lostExamples: string[];
  /** receipts beyond the first of the same message at the same destination */
  duplicates: number;
};

/** "timeout: no complete response within 5 s" → a short reason to group by. */
export function reasonOf(lastError: string | null): string {
  if (!lastError) return "unknown";
  return lastError
    .replace(/\s+\(.*\)$/, "")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .slice(0, 80);
}

export function computeDrillReport(opts: {
  accepted: Set<string>;
  /** destinations every accepted message must reach */
  destinationIds: string[];
  rows: DeliveryRow[];
  /** destinationId → messageId → 2xx receipts */
  receipts: Map<string, Map<string, number>>;
}): DrillReport {
  const byKey = new Map(opts.rows.map((r) => [`${r.destinationId} ${r.messageId}`, r]));
  const failedReasons: Record<string, number> = {};
  let delivered = 0;
  let failed = 0;
  const lost: string[] = [];
  for (const messageId of opts.accepted) {
    for (const destinationId of opts.destinationIds) {
      const row = byKey.get(`${destinationId} ${messageId}`);
      if (!row || (row.state !== "delivered" && row.state !== "failed")) {
        lost.push(`${messageId} → ${destinationId.slice(0, 8)}: ${row ? row.state : "no delivery"}`);
      } else if (row.state === "delivered") {
        delivered++;
        if (!(opts.receipts.get(destinationId)?.get(messageId) ?? 0))
          lost.push(`${messageId} → ${destinationId.slice(0, 8)}: delivered but never received`);
      } else {
        failed++;
        const reason = reasonOf(row.lastError);
        failedReasons[reason] = (failedReasons[reason] ?? 0) + 1;
      }
    }
  }
  let duplicates = 0;
  for (const perMessage of opts.receipts.values()) for (const n of perMessage.values()) duplicates += Math.max(0, n - 1);
  return {
    accepted: opts.accepted.size,
    deliveries: opts.accepted.size * opts.destinationIds.length,
    delivered,
    failed,
    failedReasons,
    lost: lost.length,
    lostExamples: lost.slice(0, 5),
    duplicates,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
