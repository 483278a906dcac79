import "server-only";
import { closeRuntime } from "../platform/runtime";
import { needsSetup } from "./accounts";
import { setupCode } from "./setup-code";

/**
 * For `npm start` (docs/operations.md#first-run): the ready-made setup link while no owner exists,
 * else null. Opens and closes its own connections.
 */
export async function setupLinkIfPending(baseUrl: string): Promise<string | null> {
  try {
    if (!(await needsSetup())) return null;
    return `${baseUrl}/setup?code=${encodeURIComponent(await setupCode())}`;
  } finally {
    await closeRuntime();
  }
}
