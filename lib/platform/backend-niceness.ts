import "server-only";
import { readFileSync } from "node:fs";
import os from "node:os";
import type pg from "pg";

/** Host names under which the database server is a process of this machine (or a Unix socket path). */
const isLocalHost = (host: string) => host === "" || host === "localhost" || host === "127.0.0.1" || host === "::1" || host.startsWith("/");

/**
 * Gives a connection's Postgres backend process this CPU niceness, so that the queries a niced
 * process sends yield the CPU as the process itself does (docs/architecture.md#processes): the
 * dashboard's reads then cannot crowd out the ingest server's inserts on a shared machine.
 * Only for a server on this machine, and only when the process with the backend's pid is a
 * Postgres process (a server in another PID namespace reports a pid that may name an unrelated
 * local process). Returns whether it was applied; anything refused leaves the priority unchanged.
 */
export function reniceBackend(client: pg.ClientBase, niceness: number): boolean {
  const { processID: pid, host } = client as pg.ClientBase & { processID?: number; host: string };
  if (!pid || !isLocalHost(host ?? "")) return false;
  try {
    if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") return false;
    os.setPriority(pid, niceness);
    return true;
  } catch {
    return false; // no /proc, or not permitted: the backend keeps its priority
  }
}
