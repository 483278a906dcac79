import "server-only";
import { assertUuid } from "../platform/errors";

/**
 * A malformed id in a URL names no audience: 404 without asking Postgres, which would refuse it as
 * a uuid (a 500). Its own module so that audiences.ts, syncs.ts and members.ts share it without a cycle.
 */
export function assertAudienceId(id: string): void {
  assertUuid(id, "Audience");
}
