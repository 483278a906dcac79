// `npm start` as an operator runs it (docs/operations.md#starting): the embedded Postgres, data that
// survives a restart, a web app that comes back after it is killed, and nothing left behind when a
// process manager signals npm's own PID (issue 17 items 1, 2 and 6).
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../scripts/lib/build";
import { TS_NODE_ARGS } from "../scripts/lib/runtime";
import { descendants, environOf, isRunning } from "./harness/processes";
import { ADMIN_TOKEN, freePort, waitFor } from "./harness/stack";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-start-"));
fs.chmodSync(dataDir, 0o755);
/** Every process `npm start` ran, so that a failed assertion leaves none of them (or their Postgres) behind. */
const started = new Set<number>();
afterAll(async () => {
  const left = [...started].filter(isRunning);
  for (const pid of left) process.kill(pid, "SIGTERM");
  await waitFor(async () => left.every((pid) => !isRunning(pid)), { timeoutMs: 60_000, what: "npm start to stop" });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Runs start.ts with no DATABASE_URL (embedded Postgres) until it prints its URL: directly under
 * node, or through the real `npm start` (npm → sh → node).
 */
async function start(port: number, how: "node" | "npm") {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EVENTRAIL_DATA_DIR: dataDir, EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN };
  // Left to the product: `npm start` itself must keep Next's telemetry off and quiet.
  delete env.NEXT_TELEMETRY_DISABLED;
  delete env.DATABASE_URL;
  const [cmd, args] = how === "npm" ? ["npm", ["start"]] : [process.execPath, [...TS_NODE_ARGS, "scripts/start.ts"]];
  const child = spawn(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  started.add(child.pid!);
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited: ${out}`);
      return out.includes(`ready: http://localhost:${port}`);
    },
    { timeoutMs: 120_000, what: "npm start to print its URL" },
  );
  for (const pid of descendants(child.pid!)) started.add(pid);
  const pidsOf = (name: string) =>
    [...out.matchAll(new RegExp(`\\[eventrail\\] ${name} started \\(pid (\\d+)\\)`, "g"))].map((m) => Number(m[1]));
  return { child, exit, output: () => out, pidsOf };
}

/** `npm run setup-link` against the embedded Postgres `npm start` runs in dataDir: its exit code and output. */
function setupLink(port: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EVENTRAIL_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile("npm", ["run", "-s", "setup-link"], { cwd: root, env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
    socket.once("connect", () => socket.destroy());
  });

describe("npm start on the embedded Postgres", () => {
  it("comes up, restarts a killed web app, keeps its data across restarts and stops cleanly on SIGTERM", { timeout: 300_000 }, async () => {
    const port = await freePort();
    const first = await start(port, "node");
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, database: "ok", queue: "ok" });
    expect(fs.existsSync(path.join(dataDir, "pg", "PG_VERSION"))).toBe(true);

    // Telemetry is off in the product, not only in CI, and its notice is never printed.
    const [webPid] = first.pidsOf("web app");
    expect(environOf(webPid, "NEXT_TELEMETRY_DISABLED")).toBe("1");
    expect(first.output()).not.toMatch(/telemetry/i);

    // A fresh install prints the setup link with its one-time code (issue 12 item 6); the code claims it.
    const printed = new RegExp(`first run: create the owner account at http://localhost:${port}/setup\\?code=([A-Za-z0-9_-]+)`);
    const link = await waitFor(async () => printed.exec(first.output()), { what: "the setup link" });
    // The link is the last line, after the ready line with each step's time; readiness polling
    // printed nothing on the way (issue 53).
    const lines = first.output().trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(printed);
    expect(lines.at(-2)).toMatch(
      new RegExp(
        `^\\[eventrail\\] ready: http://localhost:${port} \\(started in \\d+\\.\\d s: (.+, )?database \\d+\\.\\d s, processes \\d+\\.\\d s\\)$`,
      ),
    );
    expect(first.output()).not.toContain("web app unreachable");
    // Asked again while it runs, from the same database: the same link, alone on stdout.
    const repeated = await setupLink(port);
    expect(repeated).toMatchObject({ code: 0, stderr: "" });
    expect(repeated.stdout.trim()).toBe(lines.at(-1));
    const claim = (code: string) =>
      fetch(`http://127.0.0.1:${port}/api/auth/setup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery", code }),
      });
    expect((await claim("not-the-printed-code")).status).toBe(403);
    expect((await claim(link[1])).status).toBe(201);
    // Claimed: no link any more, and saying so is a failure for a script that wanted one.
    const claimed = await setupLink(port);
    expect(claimed.code).toBe(1);
    expect(claimed.stdout).toBe("");
    expect(claimed.stderr).toContain(`this install has an owner already; sign in at http://localhost:${port}/login`);

    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const ws = await (
      await fetch(`http://127.0.0.1:${port}/api/workspaces`, { method: "POST", headers: admin, body: '{"name":"persisted"}' })
    ).json();
    const token = { authorization: `Bearer ${ws.token}`, "content-type": "application/json" };
    const created = await (
      await fetch(`http://127.0.0.1:${port}/api/sources`, { method: "POST", headers: token, body: '{"name":"survivor"}' })
    ).json();

    // The web app dies (as when its heap runs out): it is restarted, says why, and takes events again.
    process.kill(webPid, "SIGKILL");
    await waitFor(async () => first.pidsOf("web app").length === 2, { timeoutMs: 30_000, what: "the web app to be restarted" });
    expect(first.output()).toMatch(/\[eventrail\] web app exited \(killed by SIGKILL\) after \d+s; restarting in 1s/);
    const track = () =>
      fetch(`http://127.0.0.1:${port}/v1/track`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ writeKey: created.writeKey, userId: "u1", event: "After Restart" }),
      }).then((r) => r.status);
    await waitFor(async () => (await track()) === 200, { timeoutMs: 60_000, what: "the restarted web app to accept events" });
    expect(first.output()).not.toContain("stopping");
    // Requests were made all along, and none of them printed a line: request lines are at debug,
    // so the setup link stays in sight (docs/operations.md#logs).
    expect(first.output()).not.toMatch(/"msg":"(api|tracking) request"/);

    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(0);
    expect(first.output()).toContain("[eventrail] stopped");
    expect(first.output()).toContain("worker stopped");

    // Process managers signal npm's own PID, and npm exits without passing SIGTERM on: start.ts
    // sees its parent go and stops everything, and nothing is left on the port.
    const second = await start(port, "npm");
    const again = await (await fetch(`http://127.0.0.1:${port}/api/sources/${created.id}`, { headers: token })).json();
    expect(again.name).toBe("survivor");
    const tree = descendants(second.child.pid!);
    expect(tree).toEqual(expect.arrayContaining([...second.pidsOf("web app"), ...second.pidsOf("worker")]));
    // Compiled JavaScript only: no process under npm start compiles TypeScript (docs/operations.md#footprint).
    const commandLines = tree.map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    expect(commandLines.filter((c) => /tsx|\.ts\b/.test(c))).toEqual([]);
    // The one URL printed is ours: Next's banner line with the web app's loopback port is not.
    expect(second.output()).not.toMatch(/Local:\s+http/);
    second.child.kill("SIGTERM");
    await second.exit;
    await waitFor(async () => tree.every((pid) => !isRunning(pid)), { timeoutMs: 60_000, what: "every process under npm to exit" });
    expect(await portAnswers(port)).toBe(false);
    await waitFor(async () => second.output().includes("[eventrail] stopped"), { what: "start.ts to say it stopped" });
    expect(second.output()).toContain("worker stopped");
    // Set up already: no setup link any more.
    expect(second.output()).not.toContain("first run:");
  });
});
