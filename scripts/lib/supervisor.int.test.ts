import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRunning } from "../../test/harness/processes";
import { waitFor } from "../../test/harness/stack";
import { TS_NODE_ARGS } from "./runtime";
import { describeExit, PRELOAD, restartDelayMs, supervise } from "./supervisor";

describe("restart backoff", () => {
  it("doubles from 1 s per quick exit in a row, up to 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("says how a child ended", () => {
    expect(describeExit(null, "SIGKILL")).toBe("killed by SIGKILL");
    expect(describeExit(134, null)).toBe("exit code 134");
  });
});

/** Children these tests start; a failed assertion must not leave one running. */
const spawned: number[] = [];
afterAll(() => {
  for (const pid of spawned.filter(isRunning)) process.kill(pid, "SIGKILL");
});

describe("supervise", () => {
  const logger = () => {
    const lines: string[] = [];
    return { lines, say: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  };

  it("ready(name) waits for the child's ready line, which is still passed on (npm start's setup link comes after the worker's)", async () => {
    const log = logger();
    const script = `console.log('{"msg":"warming"}'); setTimeout(() => console.log('{"msg":"worker started"}'), 300); setTimeout(() => {}, 5000)`;
    const children = supervise([{ name: "slow", args: ["-e", script], env: process.env, readyLine: /"msg":"worker started"/ }], {
      cwd: process.cwd(),
      ...log,
      onStartFailure: () => {},
    });
    const started = performance.now();
    await children.ready("slow");
    // Not at the first line: at the ready line, 300 ms later.
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    await children.stop();
  });

  it("restarts a child that dies once started, and says why", async () => {
    const log = logger();
    const failures: string[] = [];
    const children = supervise([{ name: "crasher", args: ["-e", "setTimeout(() => process.exit(3), 50)"], env: process.env }], {
      cwd: process.cwd(),
      ...log,
      onStartFailure: (r) => failures.push(r),
    });
    children.markStarted();
    await waitFor(async () => log.lines.filter((l) => l.startsWith("crasher started")).length >= 2, { what: "a restart" });
    await children.stop();
    expect(failures).toEqual([]);
    expect(log.lines).toContainEqual(expect.stringMatching(/^crasher exited \(exit code 3\) after \d+s; restarting in 1s$/));
  });

  it("treats an exit before the start is done as a failed start, and restarts nothing", async () => {
    const log = logger();
    const failures: string[] = [];
    const children = supervise([{ name: "web app", args: ["-e", "process.exit(2)"], env: process.env }], {
      cwd: process.cwd(),
      ...log,
      onStartFailure: (r) => failures.push(r),
    });
    await waitFor(async () => failures.length > 0, { what: "the failed start" });
    await children.stop();
    expect(failures).toEqual(["the web app exited during start-up (exit code 2)"]);
    expect(log.lines.filter((l) => l.includes("started"))).toHaveLength(1);
  });

  it("gives each child SIGTERM when the supervisor itself is killed outright", { timeout: 30_000 }, async () => {
    // A supervisor in a process of its own, running a child that would otherwise run forever.
    const script = `
      import { supervise } from ${JSON.stringify(path.join(import.meta.dirname, "supervisor.ts"))};
      supervise([{ name: "sleeper", args: ["-e", "console.log('sleeper up'); setInterval(() => {}, 1000)"], env: process.env }], {
        cwd: process.cwd(), say: console.log, warn: console.error, onStartFailure: () => {},
      }).markStarted();`;
    const supervisor = spawn(process.execPath, [...TS_NODE_ARGS, "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    supervisor.stdout.on("data", (d) => (out += d));
    await waitFor(async () => out.includes("sleeper up"), { timeoutMs: 20_000, what: "the child" });
    const pid = Number(/sleeper started \(pid (\d+)\)/.exec(out)![1]);
    spawned.push(pid);
    supervisor.kill("SIGKILL");
    await waitFor(async () => !isRunning(pid), { timeoutMs: 10_000, what: "the orphaned child to exit" });
  });

  it("a child whose supervisor died before it booted stops at once", async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    const child = spawn(process.execPath, ["--require", PRELOAD, "-e", "setInterval(() => {}, 1000)"], {
      env: { ...process.env, EVENTRAIL_SUPERVISOR_PID: String(gone.pid) },
    });
    spawned.push(child.pid!);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once("exit", (c, sig) => resolve([c, sig])),
    );
    expect({ code, signal }).toEqual({ code: null, signal: "SIGTERM" });
  });
});
