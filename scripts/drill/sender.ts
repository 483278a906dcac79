/**
 * Sends a drill's events to the Tracking API like a real client: batches of 100, a few in flight,
 * and a refused batch (503, network error) retried after a pause until the deadline. Returns the
 * messageIds acknowledged with a 200 (and not listed as rejected), and when each batch was sent.
 */
export type SendResult = { accepted: Set<string>; sentAt: Map<string, number>; ackedAt: Map<string, number>; refusals: number };

export async function sendEvents(opts: {
  baseUrl: string;
  writeKey: string;
  tag: string;
  count: number;
  concurrency?: number;
  deadline: number;
  spacingMs?: number;
  /** events per /v1/batch request (100 unless told) */
  batchSize?: number;
}): Promise<SendResult> {
  const size = opts.batchSize ?? 100;
  const accepted = new Set<string>();
  const sentAt = new Map<string, number>();
  const ackedAt = new Map<string, number>();
  let refusals = 0;
  const batches: { messageId: string; type: string; userId: string; event: string; properties: object }[][] = [];
  for (let i = 0; i < opts.count; i += size) {
    batches.push(
      Array.from({ length: Math.min(size, opts.count - i) }, (_, j) => ({
        messageId: `${opts.tag}-${i + j}`,
        type: "track",
        userId: `user-${(i + j) % 50}`,
        event: "Drill",
        properties: { i: i + j },
      })),
    );
  }
  const auth = `Basic ${Buffer.from(`${opts.writeKey}:`).toString("base64")}`;
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      for (;;) {
        if (Date.now() > opts.deadline) return;
        const at = Date.now();
        const ok = await fetch(`${opts.baseUrl}/v1/batch`, {
          method: "POST",
          headers: { authorization: auth, "content-type": "application/json" },
          body: JSON.stringify({ batch }),
        })
          .then(async (r) => (r.status === 200 ? ((await r.json()) as { rejected?: { messageId: string }[] }) : null))
          .catch(() => null);
        if (ok) {
          const acked = Date.now();
          const rejected = new Set((ok.rejected ?? []).map((r) => r.messageId));
          for (const m of batch) {
            if (rejected.has(m.messageId)) continue;
            accepted.add(m.messageId);
            sentAt.set(m.messageId, at);
            ackedAt.set(m.messageId, acked);
          }
          break;
        }
        refusals++;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      // Spread over time, so that the drill's fault lands mid-run.
      if (opts.spacingMs) await new Promise((r) => setTimeout(r, opts.spacingMs));
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 2 }, lane));
  return { accepted, sentAt, ackedAt, refusals };
}
