/**
 * "Die with the parent" for `npm start` (docs/operations.md#supervision). A process manager signals
 * npm's own PID; npm and `sh` may exit without passing the signal on, which would leave start.ts,
 * the web app and the worker running as orphans on the port. So start.ts stops everything when the
 * process that started it is gone, and each child stops when start.ts is gone
 * (scripts/lib/exit-with-supervisor.cjs).
 */
import fs from "node:fs";

/** The current parent pid: Node's `process.ppid` is read once at start-up and never changes. */
export function currentParentPid(): number | null {
  try {
    // /proc/self/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null; // no procfs (macOS): isAlive() below decides
  }
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Calls `onGone` once when this process's original parent has exited (checked every `everyMs`). */
export function watchParent(onGone: () => void, everyMs = 500): () => void {
  const original = process.ppid;
  // Started by PID 1 (a container's init) or adopted already: there is no parent to outlive.
  if (original <= 1) return () => {};
  const timer = setInterval(() => {
    const now = currentParentPid();
    if (now === null ? isAlive(original) : now === original) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
