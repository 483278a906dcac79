/** Workspaces and destinations written straight to a database, for tests that run a worker without the app. */
import pg from "pg";

export async function withClient<T>(databaseUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function insertWorkspace(databaseUrl: string): Promise<string> {
  return withClient(
    databaseUrl,
    async (c) => (await c.query(`INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'direct') RETURNING id`)).rows[0].id,
  );
}

export async function insertDestination(
  databaseUrl: string,
  opts: { workspaceId: string; urls: string[]; mode?: "any" | "every"; sharedSecret?: string },
): Promise<string> {
  return withClient(
    databaseUrl,
    async (c) =>
      (
        await c.query(
          `INSERT INTO destinations (id, workspace_id, name, urls, shared_secret, mode, updated_at)
         VALUES (gen_random_uuid(), $1, 'direct', $2, $3, $4, now()) RETURNING id`,
          [opts.workspaceId, opts.urls, opts.sharedSecret ?? null, opts.mode ?? "any"],
        )
      ).rows[0].id,
  );
}
