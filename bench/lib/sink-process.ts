/**
 * Starts bench/lib/sink.ts (the benchmarks' keep-alive webhook receiver) in its own process, so that it
 * shares an event loop with neither the worker nor the client being measured.
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { root } from "../../scripts/lib/build";

export type Sink = { port: number; pid: number | null; ask<T>(cmd: string): Promise<T>; stop(): void };

export async function startSink(): Promise<Sink> {
  const child: ChildProcess = fork(path.join(root, "bench/lib/sink.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<string, (m: any) => void>();
  child.on("message", (m: any) => {
    const w = waiting.get(m.type);
    waiting.delete(m.type);
    w?.(m);
  });
  const ready = await new Promise<any>((resolve) => waiting.set("ready", resolve));
  return {
    port: ready.port,
    pid: child.pid ?? null,
    ask: (cmd) =>
      new Promise((resolve) => {
        waiting.set(cmd, resolve);
        child.send({ cmd });
      }),
    stop: () => child.kill(),
  };
}
