// Preloaded (`node --require`) into every child `npm start` runs: when start.ts is gone (killed
// outright, or its parent vanished before it could stop us), this process gets the SIGTERM start.ts
// would have sent, so it stops gracefully instead of living on as an orphan on the port
// (docs/operations.md#supervision). Plain CommonJS: `next start` loads it without tsx.
const fs = require("node:fs");

const supervisor = Number(process.env.EVENTRAIL_SUPERVISOR_PID);
// Only a direct child of start.ts watches: processes these children start themselves inherit the
// environment but have a parent of their own.
if (supervisor > 1 && process.ppid === supervisor) {
  const parentPid = () => {
    try {
      const stat = fs.readFileSync("/proc/self/stat", "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      try {
        process.kill(supervisor, 0);
        return supervisor;
      } catch {
        return null;
      }
    }
  };
  const timer = setInterval(() => {
    if (parentPid() === supervisor) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, 500);
  timer.unref();
}
