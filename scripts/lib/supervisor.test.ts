import { describe, expect, it } from "vitest";
import { waitFor } from "../../test/harness/stack";
import { describeExit, restartDelayMs, supervise } from "./supervisor";

describe("restart backoff", () => {
  it("doubles from 1 s per quick exit in a row, up to 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("says how a child ended", () => {
    expect(describeExit(null, "SIGKILL")).toBe("killed by SIGKILL");
    expect(describeExit(134, null)).toBe("exit code 134");
  });
});

describe("supervise", () => {
  const logger = () => {
    const lines: string[] = [];
    return { lines, say: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  };

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
});
