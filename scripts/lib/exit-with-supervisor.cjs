// Preloaded (`node --require`) into every child `npm start` runs: when start.ts is gone (killed
// outright, or its parent vanished before it could stop us), this process gets the SIGTERM start.ts
// would have sent, so it stops gracefully instead of living on as an orphan on the port
// (docs/operations.md#supervision). Plain CommonJS: `next start` loads it without tsx.
const fs = require("node:fs");

const supervisor = Number(process.env.EVENTRAIL_SUPERVISOR_PID);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** The current parent: `process.ppid` is read once at start-up and never changes. */
function parentPid() {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return alive(supervisor) ? supervisor : null; // no procfs (macOS)
  }
}

if (supervisor > 1) {
  if (process.ppid === supervisor) {
    const timer = setInterval(() => {
      if (parentPid() === supervisor) return;
      clearInterval(timer);
      process.kill(process.pid, "SIGTERM");
    }, 500);
    timer.unref();
  } else if (!alive(supervisor)) {
    // start.ts died while this process was booting: there is nobody to run for. (A process one of
    // the children started has a parent of its own while start.ts lives, and is left alone.)
    process.kill(process.pid, "SIGTERM");
  }
}
