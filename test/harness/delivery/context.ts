/** Shared set-up for delivery integration tests: a stack, a workspace, a source, and seeding through createDeliveries. */
import { closeRuntime } from "../../../lib/platform/runtime";
import { startStack, waitFor, type ApiClient, type Stack } from "../stack";
import { seedMessages, type SeedMessage } from "./seed";

export type DeliveryContext = {
  stack: Stack;
  api: ApiClient;
  sourceId: string;
  /** Creates a destination through the API (connected to the source). */
  destination(body: Record<string, unknown>): Promise<{ id: string; [k: string]: unknown }>;
  /** Inserts messages for the destination as ingest would, returns their row ids. */
  send(destinationId: string, messages: SeedMessage[]): Promise<string[]>;
  /** Waits until the message's delivery to the destination is no longer pending; returns GET /api/messages/:id. */
  settled(rowId: string, opts?: { timeoutMs?: number }): Promise<any>;
  close(): Promise<void>;
};

export async function startDeliveryContext(env: Record<string, string> = {}): Promise<DeliveryContext> {
  const stack = await startStack({ workers: 1, env: { EVENTRAIL_RETRY_BASE_MS: "1000", ...env } });
  // createDeliveries (in the seeding helper) enqueues through this process's pg-boss.
  process.env.DATABASE_URL = stack.databaseUrl;
  const api = await stack.newWorkspace("delivery");
  const source = await api.post("/api/sources", { name: "Backend" });
  return {
    stack,
    api,
    sourceId: source.id,
    destination: (body) => api.post("/api/destinations", { name: "Hooks", sourceIds: [source.id], ...body }),
    send: async (destinationId, messages) =>
      (
        await seedMessages(stack.databaseUrl, {
          workspaceId: api.workspaceId!,
          sourceId: source.id,
          destinationIds: [destinationId],
          messages,
        })
      ).rowIds,
    settled: (rowId, opts = {}) =>
      waitFor(
        async () => {
          const detail = await api.get(`/api/messages/${rowId}`);
          return detail.deliveries.length > 0 && detail.deliveries.every((d: { state: string }) => d.state !== "pending") && detail;
        },
        { timeoutMs: opts.timeoutMs ?? 60_000, what: `message ${rowId} to settle` },
      ),
    async close() {
      await closeRuntime();
      await stack.stop();
    },
  };
}
