/**
 * Timers and connections must never keep a user's process alive: each case runs the client in a child
 * process that should exit on its own. The bound is generous; it only stops a hung child.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSink, type Sink } from "./testing/sink";

const CHILD = path.join(import.meta.dirname, "testing/lifetime-child.ts");
const HUNG_AFTER_MS = 30_000;

let s: Sink | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

function runChild(
  endpoint: string,
  mode: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; hung: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, endpoint, mode], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    let hung = false;
    const killer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, HUNG_AFTER_MS);
    child.on("exit", (code) => {
      clearTimeout(killer);
      resolve({ code, hung, stdout, stderr });
    });
  });
}

describe("process lifetime", () => {
  it("after close() the process exits by itself, with every message delivered", async () => {
    s = await startSink();
    const run = await runChild(s.url, "close", { DEBUG: "analytics" });
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ sent: 110, failed: 0 });
    expect(new Set(s.messageIds())).toEqual(new Set(Array.from({ length: 110 }, (_, i) => `child-${i}`)));
    // DEBUG=analytics logged to stderr, without the write key.
    expect(run.stderr).toContain("queued track child-0");
    expect(run.stderr).toContain("closed: ");
    expect(run.stderr).not.toContain("wk_child_secret_key");
  }, 60_000);

  it("after flush() without close() the idle connection does not hold the process", async () => {
    s = await startSink();
    const run = await runChild(s.url, "flush");
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ sent: 110, failed: 0 });
  }, 60_000);

  it("a client with messages still queued and a distant flushAfter does not hold the process (documented: call close())", async () => {
    s = await startSink();
    const run = await runChild(s.url, "abandon");
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
  }, 60_000);
});
