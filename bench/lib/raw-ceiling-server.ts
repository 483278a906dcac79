/**
 * The raw pipeline ceiling of `bench:ingest` (issue 14): the least a Tracking API server can do
 * with a batch — a minimal node:http server that reads the body, parses it, and stores the
 * messages with one multi-row INSERT into a table with only a primary key, then answers 200.
 * No auth, validation, dedupe, routing or jobs: the physical limit of node + Postgres on this
 * machine, run as its own process like the ingest server it is compared with.
 * Env: DATABASE_URL, PORT; prints "ready" when listening.
 */
import http from "node:http";
import pg from "pg";
import { createRawTable, rawStore } from "./raw-store";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on("error", () => {});

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    try {
      const { batch } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { batch: unknown[] };
      await rawStore(
        pool,
        batch.map((m) => JSON.stringify(m)),
      );
      res.writeHead(200, { "content-type": "application/json" }).end('{"success":true}');
    } catch (err) {
      res.writeHead(500).end(String((err as Error).message));
    }
  });
});

await createRawTable(pool);
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));
