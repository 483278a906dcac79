/** A receiver that counts deliveries per messageId, to see duplicates across crashes. */
import { startReceiver, type Receiver } from "./receiver";
import { withClient } from "./direct";

export type CountingReceiver = Receiver & {
  counts: Map<string, number>;
  unique(): number;
  duplicates(): number;
  /** Answers requests received from now on after `ms` (a slow receiver keeps a run long enough to interrupt; after the interruption it need not be). */
  setDelayMs(ms: number): void;
};

export async function startCountingReceiver(delayMs: number): Promise<CountingReceiver> {
  const counts = new Map<string, number>();
  let delay = delayMs;
  const rx = await startReceiver((req) => {
    const id = JSON.parse(req.body).messageId as string;
    counts.set(id, (counts.get(id) ?? 0) + 1);
    return { status: 200, delayMs: delay };
  });
  return Object.assign(rx, {
    counts,
    unique: () => counts.size,
    duplicates: () => [...counts.values()].reduce((s, n) => s + n - 1, 0),
    setDelayMs: (ms: number) => {
      delay = ms;
    },
  });
}

export async function countDelivered(databaseUrl: string, destinationId: string): Promise<number> {
  return withClient(
    databaseUrl,
    async (c) =>
      (await c.query(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND state = 'delivered'`, [destinationId]))
        .rows[0].n,
  );
}

export const manyTracks = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    type: "track",
    userId: `user-${i % 97}`,
    event: "Fault Test",
    messageId: `${tag}-${i}`,
    properties: { i },
  }));
