/**
 * An independent ledger for ordered delivery (docs/webhooks.md#ordering): a receiver on loopback that
 * answers each request as the test decides and writes down, in the order it handled them, every
 * event it was sent (its key and its place in its key's stream), and a check of that ledger that
 * knows nothing of the engine: an event may arrive only once every earlier event of its key was
 * accepted (answered 2xx) — so a retry is never overtaken, and nothing earlier comes after.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";

/** One event of one request as the receiver saw it. */
export type Receipt = { path: string; key: string; seq: number; status: number; at: number; request: number };

/** What the receiver answers a request to `path` holding `events`. */
export type Decide = (path: string, events: { key: string; seq: number }[]) => number;

export type LedgerReceiver = {
  url: string;
  receipts: Receipt[];
  /** keys that appeared twice in one request (a batch) */
  sameKeyInOneRequest: string[];
  decide: Decide;
  close(): Promise<void>;
};

/** Events carry their key as userId and their place as properties.seq. */
export async function startLedgerReceiver(decide: Decide): Promise<LedgerReceiver> {
  let request = 0;
  const rx: LedgerReceiver = {
    url: "",
    receipts: [],
    sameKeyInOneRequest: [],
    decide,
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
      const bodies = (Array.isArray(parsed) ? parsed : [parsed]) as { userId?: string; properties?: { seq?: number } }[];
      const events = bodies.map((b) => ({ key: String(b.userId), seq: Number(b.properties?.seq) }));
      const path = req.url ?? "/";
      const status = rx.decide(path, events);
      const n = ++request;
      const seen = new Set<string>();
      for (const e of events) {
        if (seen.has(e.key)) rx.sameKeyInOneRequest.push(e.key);
        seen.add(e.key);
        rx.receipts.push({ path, key: e.key, seq: e.seq, status, at: performance.now(), request: n });
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  rx.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rx;
}

/**
 * The ledger's verdict for one path: every way an event arrived before an earlier event of its key
 * was accepted, and the events of `expected` (per key, how many) never accepted.
 */
export function orderViolations(receipts: readonly Receipt[], path: string, expected: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const accepted = new Map<string, Set<number>>();
  const next = new Map<string, number>();
  for (const r of receipts) {
    if (r.path !== path) continue;
    const need = next.get(r.key) ?? 0;
    if (r.seq > need) problems.push(`${r.key}#${r.seq} arrived (request ${r.request}) before ${r.key}#${need} was accepted`);
    if (r.status >= 200 && r.status < 300) {
      const set = accepted.get(r.key) ?? new Set<number>();
      set.add(r.seq);
      accepted.set(r.key, set);
      let n = need;
      while (set.has(n)) n++;
      next.set(r.key, n);
    }
  }
  for (const [key, count] of expected) {
    const got = next.get(key) ?? 0;
    if (got < count) problems.push(`${key}: ${count - got} of ${count} events never accepted in order (next needed #${got})`);
  }
  return problems;
}

/** A source (its write key) connected to the given destinations, written straight to the database. */
export async function insertSource(
  databaseUrl: string,
  workspaceId: string,
  destinationIds: string[],
): Promise<{ id: string; writeKey: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const writeKey = `wk${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`.padEnd(32, "0").slice(0, 32);
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, 'ordered', $2, now()) RETURNING id`,
      [workspaceId, writeKey],
    );
    for (const d of destinationIds)
      await client.query("INSERT INTO destination_sources (destination_id, source_id) VALUES ($1, $2)", [d, rows[0].id]);
    return { id: rows[0].id, writeKey };
  } finally {
    await client.end();
  }
}

/** An ordering destination written straight to the database. */
export async function insertOrderedDestination(
  databaseUrl: string,
  opts: { workspaceId: string; url: string; batch?: { size: number; maxWaitMs: number }; maxHoldMinutes?: number; ordering?: string },
): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO destinations (id, workspace_id, name, urls, ordering, max_hold_minutes, batch, updated_at)
       VALUES (gen_random_uuid(), $1, 'ordered', $2, $3, $4, $5, now()) RETURNING id`,
      [opts.workspaceId, [opts.url], opts.ordering ?? "perUser", opts.maxHoldMinutes ?? 60, opts.batch ? JSON.stringify(opts.batch) : null],
    );
    return rows[0].id;
  } finally {
    await client.end();
  }
}

/** A track call of `key`'s `seq`-th event. */
export const orderedTrack = (key: string, seq: number, tag: string) => ({
  type: "track",
  userId: key,
  event: "Step",
  messageId: `${tag}-${key}-${seq}`,
  properties: { seq },
});

/** A deterministic generator (mulberry32) for the streams and failures a seed describes. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
