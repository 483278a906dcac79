import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { continuePickingAfter, freePort } from "./stack";

const reservation = (port: number) => path.join(os.tmpdir(), "eventrail-test-ports", String(port));

describe("freePort", () => {
  it("never hands out a port again while the process that picked it lives, even when nothing is bound to it", async () => {
    // The CI failure: a file's Postgres was stopped for a restart, another file picked its port,
    // and the restarted Postgres or the new child failed with EADDRINUSE.
    const first = await freePort();
    continuePickingAfter(first - 1);
    const second = await freePort();
    expect(second).not.toBe(first);
    expect(fs.readFileSync(reservation(first), "utf8")).toBe(String(process.pid));
  });

  it("takes over a reservation whose process is gone", async () => {
    const probe = await freePort();
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const stalePort = probe + 1;
    fs.writeFileSync(reservation(stalePort), gone.stdout);
    continuePickingAfter(probe);
    expect(await freePort()).toBe(stalePort);
    expect(fs.readFileSync(reservation(stalePort), "utf8")).toBe(String(process.pid));
  });
});
