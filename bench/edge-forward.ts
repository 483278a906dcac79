/**
 * `npm run bench:edge` (issue 34, docs/decisions/0050-edge-on-fastify.md): what the edge costs per
 * request it forwards to the web app, for each way of forwarding — CPU of the forwarding process
 * per request (from /proc, so neighbours on a shared machine do not skew it) and requests/s, against
 * a stand-in web app answering a small JSON body. Modes, each in its own process:
 *   direct      no edge: the load straight at the stand-in (the ceiling)
 *   edge        the edge as shipped: fastify, @fastify/reply-from on an undici pool, bodies framed
 *   fastify-undici  fastify with a hand-written undici.request forward (no reply-from)
 *   http-undici node:http with undici.request (no fastify)
 *   edge-v1m    the edge answering POST /v1/m itself (no forwarding, no database): its own cost on /v1
 * Env: BENCH_DURATION_S (5), BENCH_CONCURRENCY (16), BENCH_BODY (0: GETs; n: POSTs of n bytes),
 * BENCH_PROFILE=<dir> (a V8 CPU profile of each forwarding process, in <dir>/<mode>).
 * A line per mode, then RESULT edge ratio=<the edge's requests/s over direct's> <mode>_per_s=<n>
 * <mode>_cpu_us=<n> … (bench/lib/result.ts).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Pool, request as undiciRequest } from "undici";
import { printResult, throughputRatio } from "./lib/result";

const MODES = ["direct", "edge", "fastify-undici", "http-undici", "edge-v1m"] as const;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BODY = Number(process.env.BENCH_BODY ?? 0);

const ticks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(f[11]) + Number(f[12]);
};

async function serve(mode: string, upstream: string): Promise<number> {
  if (mode === "edge" || mode === "edge-v1m") {
    const { createEdge } = await import("../lib/ingest/server");
    const { app, server } = await createEdge({ webUrl: upstream, webConcurrency: CONCURRENCY });
    await app.listen({ port: 0, host: "127.0.0.1" });
    return (server.address() as AddressInfo).port;
  }
  const pool = new Pool(upstream, { connections: CONCURRENCY });
  const forward = async (method: string, path: string, headers: Record<string, string>, body: Buffer | null) => {
    const res = await undiciRequest(`${upstream}${path}`, { dispatcher: pool, method: method as "GET", headers, body });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  };
  if (mode === "fastify-undici") {
    const Fastify = (await import("fastify")).default;
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer" }, (_r, b, done) => done(null, b));
    app.all("/*", async (req, reply) => {
      const headers: Record<string, string> = { "x-forwarded-for": req.ip };
      const body = Buffer.isBuffer(req.body) ? req.body : null;
      if (body) headers["content-length"] = String(body.length);
      const r = await forward(req.method, req.url, headers, body);
      return reply.code(r.status).header("content-type", String(r.headers["content-type"])).send(r.body);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    return (app.server.address() as AddressInfo).port;
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = chunks.length ? Buffer.concat(chunks) : null;
      const headers: Record<string, string> = { "x-forwarded-for": req.socket.remoteAddress ?? "" };
      if (body) headers["content-length"] = String(body.length);
      const r = await forward(req.method ?? "GET", req.url ?? "/", headers, body);
      res.writeHead(r.status, { "content-type": String(r.headers["content-type"]), "content-length": r.body.length });
      res.end(r.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

async function child() {
  const port = await serve(process.env.EDGE_MODE!, process.env.EDGE_UPSTREAM!);
  process.send?.({ port });
  process.on("SIGTERM", () => process.exit(0)); // an exit, so that --cpu-prof writes its profile
}

async function load(port: number, seconds: number, v1 = false): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const body = v1 ? "{}" : BODY > 0 ? "x".repeat(BODY) : undefined;
  const deadline = Date.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const res = await pool.request({
          path: "/api/bench",
          method: body ? "POST" : "GET",
          body,
          headers: body ? { "content-type": "application/json" } : {},
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
        n++;
      }
    }),
  );
  await pool.close();
  return n;
}

async function main() {
  const answer = JSON.stringify({ sources: Array.from({ length: 5 }, (_, i) => ({ id: `src_${i}`, name: `Source ${i}` })) });
  const upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  upstream.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  console.log(
    `load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; ${CONCURRENCY} connections, ${BODY ? `POST ${BODY} B` : "GET"}`,
  );
  const fields: Record<string, number> = {};
  for (const mode of MODES) {
    let port = (upstream.address() as AddressInfo).port;
    let pid = process.pid;
    let proc: ReturnType<typeof spawn> | null = null;
    if (mode !== "direct") {
      const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}/${mode}`] : [];
      proc = spawn(process.execPath, [...profile, "--conditions=react-server", "--import", "tsx", new URL(import.meta.url).pathname], {
        env: { ...process.env, EDGE_CHILD: "1", EDGE_MODE: mode, EDGE_UPSTREAM: upstreamUrl, LOG_LEVEL: "warn" },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      port = await new Promise<number>((r) => proc!.once("message", (m: { port: number }) => r(m.port)));
      pid = proc.pid!;
    }
    await load(port, 1, mode === "edge-v1m");
    const t0 = ticks(pid);
    const n = await load(port, DURATION_S, mode === "edge-v1m");
    // With no edge, the process measured is this one: the load generator and the stand-in together.
    const cpuUs = ((ticks(pid) - t0) * 10_000) / n;
    console.log(
      `[bench] mode=${mode} req_per_s=${Math.round(n / DURATION_S)} cpu_us_per_req=${mode === "direct" ? "n/a" : cpuUs.toFixed(0)}`,
    );
    const key = mode.replaceAll("-", "_");
    fields[`${key}_per_s`] = Math.round(n / DURATION_S);
    if (mode !== "direct") fields[`${key}_cpu_us`] = Math.round(cpuUs);
    proc?.kill();
  }
  upstream.close();
  // The ceiling is the stand-in web app without an edge in front (direct).
  printResult("edge", throughputRatio(fields.edge_per_s, fields.direct_per_s), fields);
  process.exit(0);
}

if (process.env.EDGE_CHILD) void child();
else void main();
