/** A receiver that counts deliveries per messageId, to see duplicates across crashes. */
import { startReceiver, type Receiver } from "./receiver";
import { withClient } from "./direct";

export type CountingReceiver = Receiver & { counts: Map<string, number>; unique(): number; duplicates(): number };

export async function startCountingReceiver(delayMs: number): Promise<CountingReceiver> {
  const counts = new Map<string, number>();
  const rx = await startReceiver((req) => {
    const id = JSON.parse(req.body).messageId as string;
    counts.set(id, (counts.get(id) ?? 0) + 1);
    return { status: 200, delayMs };
  });
  return Object.assign(rx, {
    counts,
    unique: () => counts.size,
    duplicates: () => [...counts.values()].reduce((s, n) => s + n - 1, 0),
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
