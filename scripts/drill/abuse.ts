/**
 * `npm run drill -- abuse` (issue 12): what an anonymous attacker can do to a running instance while
 * a steady Tracking API load runs. A quiet phase measures /v1/track latency alone; then, for as long
 * again, the same load runs beside a login flood (32 loops, each attempt from a fresh client address
 * and email — a botnet the per-address throttle cannot stop, so every attempt is hashed — plus one
 * loop hammering the owner's account, which the per-account throttle turns into 429s), a capture flood
 * and oversized bodies (200 MB password, 50 MB Management API body, 5 MB Tracking API body), all
 * streamed. Reported: /v1 p50/p99 under attack vs quiet, what each attack was answered, /api/health,
 * the web process's memory, and lost events (accepted by /v1 but not delivered and received).
 */
import { ADMIN_TOKEN, ApiClient, SETUP_CODE } from "../../test/harness/stack";
import { rssMb, streamHugeBody } from "../../test/harness/streaming";
import type { Stack } from "./harness";
import { finalRows } from "./harness";
import { startDrillReceiver } from "./receiver";
import { computeDrillReport, percentile } from "./report";

/** What the app must be started with for this drill: the flood's addresses are believed (one proxy). */
export const ABUSE_APP_ENV = { EVENTRAIL_TRUSTED_PROXIES: "1", EVENTRAIL_SETUP_CODE: SETUP_CODE };

const MB = 1024 * 1024;
const OWNER = { email: "owner@example.com", password: "correct horse battery" };

export type AbuseResult = {
  attacks: Attack[];
  quiet: { p50: number; p99: number; n: number };
  attack: { p50: number; p99: number; n: number };
  trackNon200: number;
  logins: Record<string, number>;
  captures: Record<string, number>;
  oversized: Record<string, number>;
  healthMaxMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  accepted: number;
  lost: number;
  lostExamples: string[];
  seconds: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (tally: Record<string, number>, key: string | number) => {
  tally[key] = (tally[key] ?? 0) + 1;
};

export type Attack = "login" | "capture" | "oversized";
export const ATTACKS: Attack[] = ["login", "capture", "oversized"];

export async function runAbuseDrill(
  stack: Stack,
  opts: { appPid: number; phaseMs: number; ratePerSecond: number; attacks?: Attack[] },
): Promise<AbuseResult> {
  const attacks = new Set(opts.attacks ?? ATTACKS);
  const started = Date.now();
  const base = stack.appUrl;
  const setup = await fetch(`${base}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.1" },
    body: JSON.stringify({ ...OWNER, code: SETUP_CODE }),
  });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`);
  const admin = new ApiClient(base, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "drill abuse" });
  const api = new ApiClient(base, ws.token, ws.workspace.id);
  const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "steady" });
  const receiver = await startDrillReceiver();
  const dest = await api.post<{ id: string }>("/api/destinations", {
    name: "steady",
    urls: [`${receiver.url}/hook`],
    sourceIds: [source.id],
  });
  const bin = await api.post<{ id: string }>("/api/capture-bins", { name: "flooded" });

  // The steady load: an open loop (a call every 1/rate s, whatever the previous ones are doing).
  const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`;
  const accepted = new Set<string>();
  let trackNon200 = 0;
  let seq = 0;
  const steady = async (ms: number): Promise<number[]> => {
    const latencies: number[] = [];
    const inFlight: Promise<void>[] = [];
    const until = Date.now() + ms;
    for (let next = Date.now(); next < until; next += 1000 / opts.ratePerSecond) {
      await sleep(Math.max(0, next - Date.now()));
      const messageId = `abuse-${++seq}`;
      const t = performance.now();
      inFlight.push(
        fetch(`${base}/v1/track`, {
          method: "POST",
          headers: { authorization: auth, "content-type": "application/json" },
          body: JSON.stringify({ messageId, userId: `u${seq % 50}`, event: "Steady", properties: { seq } }),
        })
          .then(async (r) => {
            await r.arrayBuffer();
            latencies.push(performance.now() - t);
            if (r.status === 200) accepted.add(messageId);
            else trackNon200++;
          })
          .catch(() => {
            trackNon200++;
          }),
      );
    }
    await Promise.all(inFlight);
    return latencies.sort((a, b) => a - b);
  };
  const summary = (xs: number[]) => ({ p50: Math.round(percentile(xs, 50)), p99: Math.round(percentile(xs, 99)), n: xs.length });

  // Warm up first (JIT, connections, the worker's first rounds): not measured.
  await steady(5_000);
  const rssBeforeMb = await rssMb(opts.appPid);
  const quiet = await steady(opts.phaseMs);

  let attacking = true;
  const logins: Record<string, number> = {};
  const captures: Record<string, number> = {};
  const oversized: Record<string, number> = {};
  let rssPeakMb = rssBeforeMb;
  let healthMaxMs = 0;
  const login = async (email: string, password: string, address: string) => {
    const r = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: JSON.stringify({ email, password }),
    }).catch(() => null);
    await r?.arrayBuffer();
    count(logins, r?.status ?? "network error");
  };
  const loginLoops = Array.from({ length: attacks.has("login") ? 32 : 0 }, async (_, i) => {
    for (let k = 0; attacking && k < 100_000; k++) await login(`victim${i}-${k}@example.com`, `guess ${k}`, `198.18.${i}.${k % 250}`);
  });
  const ownerLoop = (async () => {
    for (let k = 0; attacks.has("login") && attacking && k < 100_000; k++) await login(OWNER.email, `guess ${k}`, `198.19.0.${k % 250}`);
  })();
  const body64k = "x".repeat(64 * 1024);
  const captureLoops = Array.from({ length: attacks.has("capture") ? 8 : 0 }, async () => {
    for (let k = 0; attacking && k < 100_000; k++) {
      const r = await fetch(`${base}/c/${bin.id}`, { method: "POST", body: body64k }).catch(() => null);
      await r?.arrayBuffer();
      count(captures, r?.status ?? "network error");
    }
  });
  const oversizedLoop = (async () => {
    const kinds: { name: string; url: string; totalBytes: number; prefix: string; headers: Record<string, string> }[] = [
      { name: "login 200 MB", url: `${base}/api/auth/login`, totalBytes: 200 * MB, prefix: '{"email":"a@b.co","password":"', headers: {} },
      {
        name: "api 50 MB",
        url: `${base}/api/sources`,
        totalBytes: 50 * MB,
        prefix: '{"name":"',
        headers: { authorization: `Bearer ${ws.token}` },
      },
      {
        name: "v1 5 MB",
        url: `${base}/v1/batch`,
        totalBytes: 5 * MB,
        prefix: '{"batch":[{"type":"track","event":"',
        headers: { authorization: auth },
      },
    ];
    for (let k = 0; attacks.has("oversized") && attacking && k < 10_000; k++) {
      const kind = kinds[k % kinds.length];
      for (const declareLength of [true, false]) {
        const res = await streamHugeBody({ ...kind, declareLength }).catch(() => null);
        count(oversized, `${kind.name} → ${res?.status ?? "network error"}`);
      }
    }
  })();
  const watch = (async () => {
    while (attacking) {
      const t = performance.now();
      await fetch(`${base}/api/health`)
        .then((r) => r.arrayBuffer())
        .catch(() => {});
      healthMaxMs = Math.max(healthMaxMs, performance.now() - t);
      rssPeakMb = Math.max(rssPeakMb, await rssMb(opts.appPid));
      await sleep(250);
    }
  })();
  // The attack is under way before the measured load starts.
  await sleep(2_000);
  const attack = await steady(opts.phaseMs);
  attacking = false;
  await Promise.all([...loginLoops, ownerLoop, ...captureLoops, oversizedLoop, watch]);

  // Every accepted event must be delivered and received.
  const deadline = Date.now() + 120_000;
  let rows = await finalRows(stack.db, source.id);
  while (Date.now() < deadline && !(rows.length >= accepted.size && rows.every((r) => r.state !== "pending"))) {
    await sleep(1_000);
    rows = await finalRows(stack.db, source.id);
  }
  const report = computeDrillReport({ accepted, destinationIds: [dest.id], rows, receipts: new Map([[dest.id, receiver.receipts]]) });
  await receiver.close();
  return {
    attacks: [...attacks],
    quiet: summary(quiet),
    attack: summary(attack),
    trackNon200,
    logins,
    captures,
    oversized,
    healthMaxMs: Math.round(healthMaxMs),
    rssBeforeMb: Math.round(rssBeforeMb),
    rssPeakMb: Math.round(rssPeakMb),
    accepted: accepted.size,
    lost: report.lost,
    lostExamples: report.lostExamples,
    seconds: (Date.now() - started) / 1000,
  };
}

export function formatAbuse(r: AbuseResult): string {
  const tally = (t: Record<string, number>) =>
    Object.entries(t)
      .map(([k, n]) => `${n}× ${k}`)
      .join(", ");
  const ratio = (a: number, b: number) => (a / Math.max(1, b)).toFixed(2);
  return [
    `[drill abuse] ${r.attacks.join(" + ")} beside a steady /v1/track load (login: 32 loops from fresh addresses + 1 on the owner; capture: 8 loops × 64 KB; oversized: streamed 200 MB / 50 MB / 5 MB bodies)`,
    `  /v1/track quiet:        p50 ${r.quiet.p50} ms · p99 ${r.quiet.p99} ms (${r.quiet.n} calls)`,
    `  /v1/track under attack: p50 ${r.attack.p50} ms · p99 ${r.attack.p99} ms (${r.attack.n} calls) → p50 ×${ratio(r.attack.p50, r.quiet.p50)}, p99 ×${ratio(r.attack.p99, r.quiet.p99)} (ceiling ×2)`,
    `  /v1/track answers other than 200: ${r.trackNon200}`,
    `  logins: ${tally(r.logins)}`,
    `  captures: ${tally(r.captures)}`,
    `  oversized: ${tally(r.oversized)}`,
    `  /api/health slowest during the attack: ${r.healthMaxMs} ms · web process RSS ${r.rssBeforeMb} MB before, ${r.rssPeakMb} MB at most`,
    `  accepted ${r.accepted} · lost ${r.lost} · ${r.seconds.toFixed(1)} s`,
    ...r.lostExamples.map((l) => `  LOST ${l}`),
  ].join("\n");
}
