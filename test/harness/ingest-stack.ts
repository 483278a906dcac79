/** The processes the ingest server's integration tests run against, started and stopped as one. */
import { type ApiClient, type Proc, startIngest, startStack, type Stack } from "./stack";
import { type Db, openDb } from "./tracking";

export type IngestStack = {
  /** `next start` (the Management API and the web app's own /v1 routes), Postgres */
  stack: Stack;
  /** the ingest server (ingest/index.ts), passing everything but /v1 to the web app */
  ingest: Proc & { url: string };
  /** a new workspace's API client */
  api: ApiClient;
  db: Db;
  stop(): Promise<void>;
};

export async function startIngestStack(workspace: string): Promise<IngestStack> {
  const stack = await startStack({ workers: 0 });
  const ingest = await startIngest(stack.databaseUrl, { webUrl: stack.app.url });
  const api = await stack.newWorkspace(workspace);
  const db = openDb(stack.databaseUrl);
  return {
    stack,
    ingest,
    api,
    db,
    stop: async () => {
      await ingest.stop();
      await db.end();
      await stack.stop();
    },
  };
}
