/**
 * npm run bench:post-cost — this process's CPU per webhook POST (µs, process.cpuUsage over a fixed
 * number of POSTs at the worker's per-origin concurrency of 64), against the same sink process
 * bench:deliver uses (bench/sink.ts), for the ceiling's client (undici Pool.request), the product's
 * exchange (postWebhook in lib/webhooks/post.ts) and variants that each isolate one difference
 * between them (docs/webhooks.md#delivery-cost). Every variant runs once per round, rounds rotate
 * the order, and the figure is the median over the rounds, so all share the machine's load.
 * Then the pure steps around a POST (request build, limiter, attempt row) alone, per operation.
 *
 * Env: POST_COST_REQUESTS (per variant and round, default 10,000), POST_COST_ROUNDS (default 5),
 * POST_COST_ONLY (comma-separated variant keys, e.g. "pool.request,post.deliver").
 */
import os from "node:os";
import { Agent, type Dispatcher, Pool } from "undici";
import { startSink } from "./sink-process";

process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
const N = Number(process.env.POST_COST_REQUESTS ?? 10_000);
const ROUNDS = Number(process.env.POST_COST_ROUNDS ?? 5);
const ONLY = process.env.POST_COST_ONLY?.split(",").map((s) => s.trim());
const CONCURRENCY = 64;
/** JSON round trips of a message per POST in the "+ work" variant (~4 µs each). */
const WORK = Number(process.env.POST_COST_WORK ?? 24);
/** The paced variant's rate: bench:deliver's worker delivers ~4,000–6,000 a second on this machine. */
const PACED_RATE = Number(process.env.POST_COST_PACED_RATE ?? 6_000);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** The messages bench:deliver sends (same shape, ~600 B bodies). */
function storedMessages(n: number) {
  const receivedAt = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => {
    const payload = {
      type: "track",
      messageId: `pc-${i}`,
      userId: `user-${i % 5000}`,
      anonymousId: `anon-${i % 7000}`,
      event: "Order Completed",
      properties: {
        orderId: `ord-${i}`,
        revenue: 19.99 + (i % 100),
        currency: "EUR",
        items: [{ sku: `SKU-${i % 300}`, qty: 1 + (i % 3) }],
        coupon: i % 5 ? null : "WINTER",
      },
      context: { ip: "203.0.113.7", library: { name: "analytics-node", version: "6.2.0" }, locale: "de-DE" },
    };
    return {
      type: "track",
      messageId: payload.messageId,
      userId: payload.userId,
      anonymousId: payload.anonymousId,
      timestamp: new Date(Date.now() + i).toISOString(),
      receivedAt,
      sentAt: null,
      payload,
    };
  });
}

/** Exchange's response handling (post.ts) without the deadline: headers lower-cased and joined, body kept. */
function parsingHandler(resolve: () => void): Dispatcher.DispatchHandler {
  const chunks: Buffer[] = [];
  return {
    onConnect() {},
    onHeaders(statusCode: number, rawHeaders: Buffer[]) {
      if (statusCode < 200) return true;
      const headers: Record<string, string> = {};
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        const name = rawHeaders[i].toString("latin1").toLowerCase();
        const value = rawHeaders[i + 1].toString("latin1");
        const before = headers[name];
        headers[name] = before === undefined ? value : `${before}, ${value}`;
      }
      return true;
    },
    onData(chunk: Buffer) {
      chunks.push(chunk);
      return true;
    },
    onComplete() {
      if (chunks.length) chunks[0].toString("utf8");
      resolve();
    },
    onError(err: Error) {
      throw err;
    },
  } as Dispatcher.DispatchHandler;
}

/** A handler that looks at nothing: undici's own cost of a dispatched POST. */
function bareHandler(resolve: () => void): Dispatcher.DispatchHandler {
  return {
    onConnect() {},
    onHeaders: () => true,
    onData: () => true,
    onComplete: () => resolve(),
    onError(err: Error) {
      throw err;
    },
  } as Dispatcher.DispatchHandler;
}

async function main() {
  const { postWebhook, originOf } = await import("../lib/webhooks/post");
  const { buildRequest, prepareSigning, webhookIdOf } = await import("../lib/webhooks/request");
  const { generateStandardSecret } = await import("../lib/webhooks/signing");
  const { OriginLimiter } = await import("../lib/delivery/origins");
  const { classifyAttempt } = await import("../lib/webhooks/outcome");
  const { toAttemptRow } = await import("../lib/delivery/attempt-row");
  const { closeRuntime } = await import("../lib/platform/runtime");

  const sink = await startSink();
  const origin = `http://127.0.0.1:${sink.port}`;
  const url = `${origin}/hook`;
  const messages = storedMessages(1_000);
  const now = new Date();
  // bench:deliver's destination: a shared secret, no custom headers.
  const deliverSigning = prepareSigning({ headers: [], sharedSecret: "bench-secret", standardWebhooks: false, standardSecret: null });
  // A realistic one: three custom headers, X-Signature and Standard Webhooks.
  const fullSigning = prepareSigning({
    headers: [
      { name: "Authorization", value: "Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc" },
      { name: "X-Tenant", value: "acme-eu" },
      { name: "X-Environment", value: "production" },
    ],
    sharedSecret: "bench-secret",
    standardWebhooks: true,
    standardSecret: generateStandardSecret(),
  });
  const build = (signing: typeof deliverSigning, i: number) =>
    buildRequest(signing, messages[i], { now, webhookId: webhookIdOf(`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`) });
  const deliverRequests = messages.map((_, i) => build(deliverSigning, i));
  const fullRequests = messages.map((_, i) => build(fullSigning, i));
  const ceilingHeaders = { "content-type": "application/json", "user-agent": "Eventrail.io/1.0" };
  const fullFlat = fullRequests.map((r) => Object.entries(r.headers).flat());
  const bodyBytes = deliverRequests.reduce((n, r) => n + Buffer.byteLength(r.body), 0) / deliverRequests.length;

  const agentOptions = { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 };
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  const agent = new Agent({ ...agentOptions, connect: { timeout: 5_000, rejectUnauthorized: true } });
  const agentBare = new Agent({ ...agentOptions, connect: { timeout: 5_000, rejectUnauthorized: true } });
  const poolBare = new Pool(origin, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  const limiter = new OriginLimiter(CONCURRENCY, 3_000);

  const dispatch = (d: Dispatcher, opts: { headers: Record<string, string> | string[]; body: string }, handler = bareHandler) =>
    new Promise<void>((resolve) =>
      d.dispatch(
        { origin, path: "/hook", method: "POST", headers: opts.headers, body: opts.body, headersTimeout: 5_000, bodyTimeout: 5_000 },
        handler(resolve),
      ),
    );
  const check = (r: Awaited<ReturnType<typeof postWebhook>>) => {
    if (r.result.kind !== "response" || r.result.status !== 200) throw new Error(`sink: ${JSON.stringify(r.result)}`);
  };

  const allVariants: { key: string; label: string; post: (i: number) => Promise<unknown> }[] = [
    {
      key: "pool.request",
      label: "(a) ceiling: Pool.request, ceiling headers, body text()",
      post: async (i) => {
        const res = await pool.request({ path: "/hook", method: "POST", headers: ceilingHeaders, body: deliverRequests[i].body });
        await res.body.text();
      },
    },
    {
      key: "agent.request",
      label: "Agent.request, ceiling headers (Agent vs Pool)",
      post: async (i) => {
        const res = await agent.request({ origin, path: "/hook", method: "POST", headers: ceilingHeaders, body: deliverRequests[i].body });
        await res.body.text();
      },
    },
    {
      key: "pool.dispatch",
      label: "Pool.dispatch, bare handler, ceiling headers",
      post: (i) => dispatch(poolBare, { headers: ceilingHeaders, body: deliverRequests[i].body }),
    },
    {
      key: "agent.dispatch",
      label: "Agent.dispatch, bare handler, ceiling headers",
      post: (i) => dispatch(agentBare, { headers: ceilingHeaders, body: deliverRequests[i].body }),
    },
    {
      key: "agent.dispatch.parse",
      label: "Agent.dispatch, Exchange's header/body handling, ceiling headers",
      post: (i) => dispatch(agentBare, { headers: ceilingHeaders, body: deliverRequests[i].body }, parsingHandler),
    },
    {
      key: "agent.dispatch.full-obj",
      label: "Agent.dispatch, bare handler, realistic headers (object)",
      post: (i) => dispatch(agentBare, fullRequests[i]),
    },
    {
      key: "agent.dispatch.full-flat",
      label: "Agent.dispatch, bare handler, realistic headers (flat array)",
      post: (i) => dispatch(agentBare, { headers: fullFlat[i], body: fullRequests[i].body }),
    },
    {
      key: "post.ceiling",
      label: "postWebhook, ceiling headers",
      post: async (i) => check(await postWebhook(url, { headers: ceilingHeaders, body: deliverRequests[i].body })),
    },
    {
      key: "post.deliver",
      label: "(b) postWebhook, bench:deliver's headers (+ X-Signature)",
      post: async (i) => check(await postWebhook(url, deliverRequests[i])),
    },
    {
      key: "post.full",
      label: "(b) postWebhook, realistic headers (3 custom, X-Signature, Standard Webhooks)",
      post: async (i) => check(await postWebhook(url, fullRequests[i])),
    },
    {
      key: "post.deliver+work",
      label: "postWebhook, bench:deliver's headers, + other JS work per POST (otherWork, see pure steps)",
      post: async (i) => {
        check(await postWebhook(url, deliverRequests[i]));
        otherWork(i);
      },
    },
    {
      key: "post.deliver@paced",
      label: `postWebhook, bench:deliver's headers, paced at ${PACED_RATE}/s (the worker's rate), no other work`,
      post: async (i) => {
        await paced();
        check(await postWebhook(url, deliverRequests[i]));
      },
    },
    {
      key: "limiter.post.full",
      label: "limiter acquire/release + postWebhook, realistic headers",
      post: async (i) => {
        const release = (await limiter.acquire(originOf(url)))!;
        const a = await postWebhook(url, fullRequests[i]);
        release(a.durationMs);
        check(a);
      },
    },
    {
      key: "attempt.full",
      label: "whole attempt: buildRequest + limiter + postWebhook + classify + toAttemptRow, realistic",
      post: async (i) => {
        const request = build(fullSigning, i);
        const release = (await limiter.acquire(originOf(url)))!;
        const a = await postWebhook(url, request);
        release(a.durationMs);
        check(a);
        const classification = classifyAttempt(a.result);
        toAttemptRow({
          workspaceId: "w",
          deliveryId: "d",
          destinationId: "x",
          messageRowId: "m",
          message: messages[i],
          url,
          attemptNumber: 1,
          request,
          attempt: a,
          classification,
          outcome: classification.outcome,
          nextRetryAt: null,
        });
      },
    },
  ];
  const variants = allVariants.filter((v) => !ONLY || ONLY.includes(v.key));

  /** Stands in for the rest of a worker's round between POSTs: object trees built, serialized and parsed. */
  const otherWork = (i: number) => {
    let n = 0;
    for (let k = 0; k < WORK; k++) n += JSON.parse(JSON.stringify(messages[(i + k * 97) % messages.length])).messageId.length;
    return n;
  };

  /** Tokens released every 10 ms at PACED_RATE per second; loopers wait for one before each POST. */
  const tokenWaiters: (() => void)[] = [];
  let pacer: NodeJS.Timeout | null = null;
  const paced = () => {
    pacer ??= setInterval(() => {
      for (let k = 0; k < PACED_RATE / 100 && tokenWaiters.length > 0; k++) tokenWaiters.shift()!();
    }, 10);
    return new Promise<void>((resolve) => tokenWaiters.push(resolve));
  };

  async function run(post: (i: number) => Promise<unknown>, n: number) {
    gc();
    let next = 0;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) await post(next++ % messages.length);
      }),
    );
    const c = process.cpuUsage(c0);
    return { usPerPost: (c.user + c.system) / n, perS: n / ((performance.now() - t0) / 1000) };
  }

  try {
    console.log(
      `[post-cost] ${N} POSTs per variant and round, ${ROUNDS} rounds, concurrency ${CONCURRENCY}, bodies ~${bodyBytes.toFixed(0)} B; load ${loadavg()}`,
    );
    // Warm-up: connections opened, code compiled.
    for (const v of variants) await run(v.post, Math.min(N, 2_000));
    const figures = new Map(variants.map((v) => [v.key, [] as { usPerPost: number; perS: number }[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(k + round) % variants.length];
        figures.get(v.key)!.push(await run(v.post, N));
      }
      console.log(`[post-cost] round ${round + 1}/${ROUNDS} done; load ${loadavg()}`);
    }
    console.log("\nCPU µs per POST (median of rounds; all rounds) — POST/s median");
    for (const v of variants) {
      const f = figures.get(v.key)!;
      const us = f.map((x) => x.usPerPost);
      console.log(
        `  ${v.key.padEnd(26)} ${median(us).toFixed(1).padStart(6)}  [${us.map((x) => x.toFixed(1)).join(", ")}]  ${median(
          f.map((x) => x.perS),
        )
          .toFixed(0)
          .padStart(6)}/s  ${v.label}`,
      );
    }

    // The pure steps, without HTTP: µs per operation, median of 5 runs of 20,000.
    const rawHeaders = ["Content-Type", "text/plain", "Content-Length", "2", "Date", new Date().toUTCString(), "Connection", "keep-alive"]
      .concat(["Keep-Alive", "timeout=60"])
      .map((s) => Buffer.from(s, "latin1"));
    const sample = await postWebhook(url, fullRequests[0]);
    // A batch's 500 rounds queued behind the origin's 64 slots, as in the worker: per acquire.
    const queued = new OriginLimiter(CONCURRENCY, 3_000);
    const QUEUE = 500;
    const pure: [string, () => unknown, number?][] = [
      ["otherWork (the + work variant's extra JS)", () => otherWork(seq++)],
      ["buildRequest, bench:deliver's signing", () => build(deliverSigning, seq++ % messages.length)],
      ["buildRequest, realistic signing", () => build(fullSigning, seq++ % messages.length)],
      ["Exchange header parsing (5 response headers)", () => parsingHandler(() => {}).onHeaders!(200, rawHeaders, () => {}, "OK")],
      [
        "limiter acquire + release (no wait)",
        () =>
          limiter.acquire("http://pure.example").then((r) => {
            r!(1);
          }),
      ],
      [
        `limiter: ${QUEUE} acquires behind ${CONCURRENCY} slots, each granted and released (per acquire)`,
        async () => {
          const waits = Array.from({ length: QUEUE }, () => queued.acquire("http://queued.example"));
          for (const w of waits) (await w)!(1);
        },
        QUEUE,
      ],
      [
        "classifyAttempt + toAttemptRow",
        () => {
          const classification = classifyAttempt(sample.result);
          return toAttemptRow({
            workspaceId: "w",
            deliveryId: "d",
            destinationId: "x",
            messageRowId: "m",
            message: messages[0],
            url,
            attemptNumber: 1,
            request: fullRequests[0],
            attempt: sample,
            classification,
            outcome: classification.outcome,
            nextRetryAt: null,
          });
        },
      ],
    ];
    let seq = 0;
    console.log("\nPure steps, CPU µs per operation (median of 5 × 20,000)");
    for (const [label, op, perOp = 1] of pure) {
      const runs: number[] = [];
      const ops = Math.ceil(20_000 / perOp);
      for (let r = 0; r < 6; r++) {
        gc();
        const c0 = process.cpuUsage();
        for (let i = 0; i < ops; i++) await op();
        const c = process.cpuUsage(c0);
        if (r > 0) runs.push((c.user + c.system) / (ops * perOp));
      }
      console.log(`  ${median(runs).toFixed(2).padStart(6)}  [${runs.map((x) => x.toFixed(2)).join(", ")}]  ${label}`);
    }
    const ceiling = median(figures.get("pool.request")?.map((x) => x.usPerPost) ?? [Number.NaN]);
    const ours = median(figures.get("post.deliver")?.map((x) => x.usPerPost) ?? [Number.NaN]);
    console.log(
      `\nRESULT post-cost ceiling_us=${ceiling.toFixed(1)} post_us=${ours.toFixed(1)} ratio=${(ours / ceiling).toFixed(2)} load=${loadavg()}`,
    );
  } finally {
    if (pacer) clearInterval(pacer);
    await Promise.all([pool.close(), poolBare.close(), agent.close(), agentBare.close()]);
    await closeRuntime();
    sink.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
