import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { postmasterPid, postmasterPort } from "./postmaster";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A data directory whose postmaster.pid names `pid` and `port`, as Postgres writes it (pid, data dir, start time, port, …). */
function dataDirWith(pid: number, port: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-postmaster-"));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, "pg"));
  fs.writeFileSync(path.join(dir, "pg", "postmaster.pid"), `${pid}\n${dir}/pg\n1765000000\n${port}\n/tmp\n127.0.0.1\n`);
  return dir;
}

describe("the embedded Postgres of a data directory", () => {
  it("is found by its postmaster.pid while its process runs: pid and port", () => {
    const dir = dataDirWith(process.pid, 54_321);
    expect(postmasterPid(dir)).toBe(process.pid);
    expect(postmasterPort(dir)).toBe(54_321);
  });

  it("is not found when its process is gone or there is no postmaster.pid", () => {
    // Pids wrap below /proc/sys/kernel/pid_max; one above it is never running.
    const gone = Number(fs.readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
    expect(postmasterPort(dataDirWith(gone, 54_321))).toBeNull();
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-postmaster-"));
    dirs.push(empty);
    expect(postmasterPort(empty)).toBeNull();
  });
});
