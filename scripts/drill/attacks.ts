/**
 * The abuse drill's attackers (scripts/drill/abuse.ts), each from a loopback address of its own
 * (Linux routes all of 127/8 to lo), so that the edge's per-address caps and fairness see them as
 * the distinct clients they stand for — and the drill's /v1 load (127.0.0.1) and /api/health
 * probes (127.0.0.2) as other clients. Attackers that are answered 503/429 wait the Retry-After
 * they are given, as real clients do; without it they wait briefly, never spin.
 * Traffic only to the drill's own edge on 127.0.0.1.
 */
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { Agent, fetch as ufetch } from "undici";
import { streamHugeBody } from "../../test/harness/streaming";

export type Attack = "slow" | "idle" | "login" | "capture" | "oversized";
export const ATTACKS: Attack[] = ["slow", "idle", "login", "capture", "oversized"];
export type Tally = Record<string, number>;

/** The loopback address each client of the drill connects from. */
export const ADDRESS = {
  v1: "127.0.0.1",
  health: "127.0.0.2",
  slow: "127.0.0.3",
  idle: "127.0.0.4",
  login: "127.0.0.5",
  capture: "127.0.0.6",
  oversized: "127.0.0.7",
} as const;

export type AttackTarget = {
  base: string;
  binId: string;
  apiToken: string;
  trackAuth: string;
  owner: { email: string; password: string };
};

const MB = 1024 * 1024;
export const IDLE_SOCKETS = 20_000;
export const LOGIN_CLIENTS = 128;
export const SLOW_UPLOADS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (t: Tally, key: string | number) => {
  t[key] = (t[key] ?? 0) + 1;
};

/** An undici agent whose connections leave from `localAddress`. */
export const agentFrom = (localAddress: string) => new Agent({ connect: { localAddress } });

/** Waits what the answer's Retry-After asks (at most 10 s), or 100 ms after a network error. */
async function backOff(status: number | null, retryAfter: string | null, running: () => boolean) {
  const s = Number(retryAfter);
  const ms = status === null ? 100 : (status === 503 || status === 429) && s > 0 ? Math.min(10, s) * 1000 : 0;
  for (const until = Date.now() + ms; running() && Date.now() < until; ) await sleep(Math.min(250, until - Date.now()));
}

/**
 * Attacks whose clients run in a process of their own (scripts/drill/attack-child.ts): every one. In
 * the drill's process an attacker's work — writing hundreds of MB/s of oversized bodies, 128 login
 * clients' answers, the capture flood's — ran on the event loop that times `/v1`, so its own delays
 * were counted as the edge's (docs/decisions/0051-edge-under-abuse.md). The idle sockets have their
 * own child below.
 */
const IN_CHILD = new Set<Attack>(["slow", "login", "capture", "oversized"]);

/** Runs `attack` in a child process; its tally is read back when it stops. */
function inChild(attack: Attack, t: AttackTarget, tally: Tally): () => Promise<void> {
  const child = spawnAttacker([
    "--conditions=react-server",
    "--import",
    "tsx",
    fileURLToPath(new URL("./attack-child.ts", import.meta.url)),
    attack,
    JSON.stringify(t),
  ]);
  return stopReporting(child, tally);
}

/**
 * Whether the attackers run under SCHED_IDLE (`chrt --idle`): by default they do, and get only the
 * CPU the product and the drill's steady load leave — as attackers on other machines would take
 * none of theirs (at normal priority they took 42–59 % of a core of this 2-core machine in the
 * all-at-once phase, and the product waited for it: docs/decisions/0051-edge-under-abuse.md).
 * DRILL_ABUSE_ATTACKERS=normal runs them at normal priority; without `chrt` they run so too. Asked once,
 * when the abuse drill first needs it (not by every process that imports this module).
 */
let idle: boolean | undefined;
export function attackersIdle(): boolean {
  idle ??= process.env.DRILL_ABUSE_ATTACKERS !== "normal" && spawnSync("chrt", ["--idle", "0", "true"], { stdio: "ignore" }).status === 0;
  return idle;
}

/** An attacker's Node process, under SCHED_IDLE when attackersIdle(). */
function spawnAttacker(args: string[]): ChildProcessByStdio<Writable, Readable, null> {
  const [command, argv] = attackersIdle() ? ["chrt", ["--idle", "0", process.execPath, ...args]] : [process.execPath, args];
  return spawn(command, argv, { stdio: ["pipe", "pipe", "inherit"] });
}

/**
 * The stop of an attacker run as a child process: closing its stdin tells it to report and exit; its
 * last stdout line is its tally, copied into `tally`.
 */
function stopReporting(child: ChildProcessByStdio<Writable, Readable, null>, tally: Tally): () => Promise<void> {
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const done = new Promise<void>((resolve) => {
    child.once("exit", () => {
      const last = out.trim().split("\n").pop();
      if (last) for (const [k, v] of Object.entries(JSON.parse(last) as Tally)) tally[k] = v;
      resolve();
    });
  });
  return async () => {
    child.stdin.end();
    await done;
  };
}

/** Starts one attack; the returned function stops it and resolves when its clients are done. */
export function startAttack(attack: Attack, t: AttackTarget, tally: Tally, opts: { inProcess?: boolean } = {}): () => Promise<void> {
  if (IN_CHILD.has(attack) && !opts.inProcess) return inChild(attack, t, tally);
  let running = true;
  const isRunning = () => running;
  let done: Promise<unknown>;
  switch (attack) {
    case "login": {
      // 128 clients, each attempt from a fresh forwarded address and email (a botnet the
      // per-address throttle cannot stop), plus one on the owner's account (the per-account throttle).
      const agent = agentFrom(ADDRESS.login);
      const login = async (email: string, password: string, address: string) => {
        const r = await ufetch(`${t.base}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": address },
          body: JSON.stringify({ email, password }),
          dispatcher: agent,
        }).catch(() => null);
        await r?.arrayBuffer().catch(() => {});
        count(tally, r?.status ?? "network error");
        await backOff(r?.status ?? null, r?.headers.get("retry-after") ?? null, isRunning);
      };
      done = Promise.all([
        ...Array.from({ length: LOGIN_CLIENTS }, async (_, i) => {
          for (let k = 0; running && k < 100_000; k++) await login(`victim${i}-${k}@example.com`, `guess ${k}`, `198.18.${i}.${k % 250}`);
        }),
        (async () => {
          for (let k = 0; running && k < 100_000; k++) await login(t.owner.email, `guess ${k}`, `198.19.0.${k % 250}`);
        })(),
      ]).finally(() => agent.close());
      break;
    }
    case "capture": {
      const agent = agentFrom(ADDRESS.capture);
      const body64k = "x".repeat(64 * 1024);
      done = Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let k = 0; running && k < 100_000; k++) {
            const r = await ufetch(`${t.base}/c/${t.binId}`, { method: "POST", body: body64k, dispatcher: agent }).catch(() => null);
            await r?.arrayBuffer().catch(() => {});
            count(tally, r?.status ?? "network error");
            await backOff(r?.status ?? null, r?.headers.get("retry-after") ?? null, isRunning);
          }
        }),
      ).finally(() => agent.close());
      break;
    }
    case "oversized": {
      const kinds: { name: string; url: string; totalBytes: number; prefix: string; headers: Record<string, string> }[] = [
        {
          name: "login 200 MB",
          url: `${t.base}/api/auth/login`,
          totalBytes: 200 * MB,
          prefix: '{"email":"a@b.co","password":"',
          headers: {},
        },
        {
          name: "api 50 MB",
          url: `${t.base}/api/sources`,
          totalBytes: 50 * MB,
          prefix: '{"name":"',
          headers: { authorization: `Bearer ${t.apiToken}` },
        },
        {
          name: "v1 5 MB",
          url: `${t.base}/v1/batch`,
          totalBytes: 5 * MB,
          prefix: '{"batch":[{"type":"track","event":"',
          headers: { authorization: t.trackAuth },
        },
      ];
      done = (async () => {
        for (let k = 0; running && k < 10_000; k++) {
          const kind = kinds[k % kinds.length];
          for (const declareLength of [true, false]) {
            const res = await streamHugeBody({ ...kind, declareLength, localAddress: ADDRESS.oversized }).catch(() => null);
            count(tally, `${kind.name} → ${res?.status ?? "network error"}`);
          }
        }
      })();
      break;
    }
    case "slow":
      // Two uploads of a 1,000,000-byte body (under the 1 MB limit): one just above the minimum
      // body rate (10 KB/s, so it runs into the request deadline), one below it (2 KB/s).
      done = Promise.all(
        [10, 2].slice(0, SLOW_UPLOADS).map(async (kbPerSecond) => {
          while (running) count(tally, `${kbPerSecond} KB/s → ${await slowUpload(t, kbPerSecond * 1024, isRunning)}`);
        }),
      );
      break;
    case "idle": {
      const child = spawnAttacker([
        fileURLToPath(new URL("./idle-sockets.mjs", import.meta.url)),
        t.base,
        String(IDLE_SOCKETS),
        ADDRESS.idle,
      ]);
      return stopReporting(child, tally);
    }
  }
  return async () => {
    running = false;
    await done;
  };
}

/** One slow upload to the Management API; resolves with its answer's status or how it ended. */
function slowUpload(t: AttackTarget, bytesPerSecond: number, running: () => boolean): Promise<string> {
  const total = 1_000_000;
  return new Promise((resolve) => {
    const req = http.request(`${t.base}/api/sources`, {
      method: "POST",
      localAddress: ADDRESS.slow,
      headers: { "content-type": "application/json", "content-length": String(total), authorization: `Bearer ${t.apiToken}` },
    });
    let sent = 0;
    const piece = Buffer.alloc(Math.max(1, Math.round(bytesPerSecond / 10)), "a");
    const timer = setInterval(() => {
      if (!running()) {
        clearInterval(timer);
        req.destroy();
        return resolve("stopped");
      }
      const n = Math.min(piece.length, total - sent);
      sent += n;
      req.write(piece.subarray(0, n));
      if (sent >= total) clearInterval(timer);
    }, 100);
    req.on("response", (res) => {
      clearInterval(timer);
      res.resume();
      res.on("end", () => resolve(String(res.statusCode)));
      req.destroy();
    });
    req.on("error", () => {
      clearInterval(timer);
      resolve("closed by the edge");
    });
  });
}
