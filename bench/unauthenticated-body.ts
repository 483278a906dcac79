/**
 * `npm run bench:unauthenticated-body`: what the edge spends on a Tracking API call whose body
 * carries no write key (docs/tracking-api.md#authentication) — a 400 KB body of arrays nested
 * 200,000 deep, and a normal 100-message batch — posted to an edge in this process (no web app,
 * no Postgres: a call without a key is refused before either is needed). The ceiling is the same
 * edge answering a call with no body at all. Env: BENCH_ROUNDS (40).
 */
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { createEdge } from "../lib/ingest/server";
import { benchTrackCall } from "./lib/track-call";
import { median, printResult, runBench } from "./lib/result";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const DEPTH = 200_000;

const bodies = {
  deep: `{"batch":[${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}]}`,
  batch: JSON.stringify({ batch: Array.from({ length: 100 }, (_, n) => benchTrackCall(n, `unauth-${n}`, new Date().toISOString())) }),
  empty: "",
};

runBench(async () => {
  const { app, server } = await createEdge({ webUrl: null });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/batch`;
  const dispatcher = new Agent({ connections: 1 });
  const ms: Record<keyof typeof bodies, number[]> = { deep: [], batch: [], empty: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(bodies) as (keyof typeof bodies)[]) {
      const started = performance.now();
      const res = await request(url, { method: "POST", body: bodies[name], headers: { "content-type": "application/json" }, dispatcher });
      await res.body.text();
      // 401; before the key was looked for without parsing, an empty body was a 400 (not JSON).
      if (res.statusCode !== 401 && res.statusCode !== 400) throw new Error(`${name}: expected a refusal, got ${res.statusCode}`);
      if (round > 0) ms[name].push(performance.now() - started);
    }
  }
  await dispatcher.close();
  await app.close();
  const [deep, batch, empty] = [median(ms.deep), median(ms.batch), median(ms.empty)];
  printResult("unauthenticated-body", empty / deep, {
    deep_kb: Math.round(bodies.deep.length / 1024),
    deep_ms: deep,
    batch_kb: Math.round(bodies.batch.length / 1024),
    batch_ms: batch,
    empty_ms: empty,
  });
});
