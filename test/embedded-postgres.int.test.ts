/**
 * The embedded Postgres (the default database) runs with the product's settings, not Postgres'
 * defaults for a small shared host (docs/operations.md#database). Its own data directory.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedPostgresSettings, startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";

let dir: string;
let db: EmbeddedDb | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-embedded-"));
  db = await startEmbeddedPostgres(dir);
});
afterAll(async () => {
  await db?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the embedded Postgres", () => {
  it("starts with shared buffers sized to the machine and checkpoints spaced apart", async () => {
    const client = new pg.Client({ connectionString: db!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; value: string }>(
        `SELECT name, current_setting(name) AS value FROM pg_settings
         WHERE name IN ('shared_buffers', 'checkpoint_timeout', 'max_wal_size') ORDER BY name`,
      );
      const sharedBuffers = embeddedPostgresSettings()
        .find((s) => s.startsWith("shared_buffers="))!
        .split("=")[1];
      const gb = Number(sharedBuffers.replace("MB", "")) / 1024;
      expect(rows).toEqual([
        { name: "checkpoint_timeout", value: "15min" },
        { name: "max_wal_size", value: "2GB" },
        { name: "shared_buffers", value: Number.isInteger(gb) ? `${gb}GB` : sharedBuffers },
      ]);
    } finally {
      await client.end();
    }
  });
});
