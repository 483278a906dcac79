import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../scripts/lib/build";
import { TS_NODE_ARGS } from "../scripts/lib/runtime";
import { ADMIN_TOKEN, freePort, waitFor } from "./harness/stack";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-start-"));
fs.chmodSync(dataDir, 0o755);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs `npm start` with no DATABASE_URL (embedded Postgres) until it prints its URL. */
async function start(port: number) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    EVENTRAIL_DATA_DIR: dataDir,
    EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [...TS_NODE_ARGS, "scripts/start.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
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
  return { child, exit, output: () => out };
}

describe("npm start on the embedded Postgres", () => {
  it("comes up, answers /api/health, keeps its data across restarts and stops cleanly on SIGTERM", { timeout: 300_000 }, async () => {
    const port = await freePort();
    const first = await start(port);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, database: "ok", queue: "ok" });
    expect(fs.existsSync(path.join(dataDir, "pg", "PG_VERSION"))).toBe(true);

    // A fresh install prints the setup link with its one-time code (issue 12 item 6); the code claims it.
    const printed = new RegExp(`first run: create the owner account at http://localhost:${port}/setup\\?code=([A-Za-z0-9_-]+)`);
    const link = await waitFor(async () => printed.exec(first.output()), { what: "the setup link" });
    const claim = (code: string) =>
      fetch(`http://127.0.0.1:${port}/api/auth/setup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery", code }),
      });
    expect((await claim("not-the-printed-code")).status).toBe(403);
    expect((await claim(link[1])).status).toBe(201);

    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const ws = await (
      await fetch(`http://127.0.0.1:${port}/api/workspaces`, { method: "POST", headers: admin, body: '{"name":"persisted"}' })
    ).json();
    const token = { authorization: `Bearer ${ws.token}`, "content-type": "application/json" };
    const created = await (
      await fetch(`http://127.0.0.1:${port}/api/sources`, { method: "POST", headers: token, body: '{"name":"survivor"}' })
    ).json();

    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(0);
    expect(first.output()).toContain("[eventrail] stopped");
    expect(first.output()).toContain("worker stopped");

    const second = await start(port);
    const again = await (await fetch(`http://127.0.0.1:${port}/api/sources/${created.id}`, { headers: token })).json();
    expect(again.name).toBe("survivor");
    second.child.kill("SIGTERM");
    expect(await second.exit).toBe(0);
    // Set up already: no setup link any more.
    expect(second.output()).not.toContain("first run:");
  });
});
