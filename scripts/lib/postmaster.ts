/**
 * Finding and stopping the embedded Postgres from the supervisor, which did not start it itself (the start-up
 * step did, scripts/prepare.ts, and it runs on as its own process group): by the pid in its
 * postmaster.pid, with SIGINT, Postgres' "fast" shutdown, and waiting until it is gone.
 */
import fs from "node:fs";
import path from "node:path";

/** Running, and not a zombie: its parent is whoever adopted it, which may never reap it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no procfs (macOS): kill(0) decides
  }
}

/** The running postmaster's pid for a data directory (`<dataDir>/pg`), or null. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
    return pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** The port the running postmaster of a data directory listens on (its postmaster.pid's fourth line), or null. */
export function postmasterPort(dataDir: string): number | null {
  if (postmasterPid(dataDir) === null) return null;
  try {
    const port = Number(fs.readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[3]);
    return port > 0 ? port : null;
  } catch {
    return null;
  }
}

export async function stopPostmaster(dataDir: string, timeoutMs = 60_000): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null) return;
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`the embedded Postgres (pid ${pid}) did not stop within ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
