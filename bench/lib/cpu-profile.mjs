/**
 * Preload (`--import`) that writes a V8 CPU profile of the process when it exits, into
 * $CPU_PROFILE_DIR: Node 20 refuses --cpu-prof in NODE_OPTIONS, and the benches start their
 * workers through the test harness, which only passes environment variables.
 */
import fs from "node:fs";
import inspector from "node:inspector";
import path from "node:path";

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 200 });
  session.post("Profiler.start");
  process.on("exit", () => {
    // Same-thread sessions dispatch synchronously, so the profile is written before the process ends.
    session.post("Profiler.stop", (err, res) => {
      if (!err) fs.writeFileSync(path.join(dir, `worker-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
