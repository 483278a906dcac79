// updateProfiles on a real database, inside a transaction as ingest calls it.

import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool, withTransaction } from "../lib/platform/db";
import { insertWorkspace, useTestDatabase } from "./harness/audience-fixtures";
import { updateProfiles, type ProfileInput } from "../lib/audiences/profiles";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
let ws: string;

beforeAll(async () => {
  db = await useTestDatabase();
  ({ workspaceId: ws } = await insertWorkspace());
});
afterAll(() => db?.close());

/** Runs updateProfiles in a transaction and counts the statements it sends. */
async function run(messages: ProfileInput[]): Promise<number> {
  return withTransaction(async (client) => {
    let count = 0;
    const counting = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === "query") {
          return (...args: unknown[]) => {
            count++;
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    }) as pg.PoolClient;
    await updateProfiles(counting, { workspaceId: ws, messages });
    return count;
  });
}

const at = (s: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, s)).toISOString();
const profile = async (userId: string) =>
  (await pool().query(`SELECT traits, anonymous_ids FROM profiles WHERE workspace_id = $1 AND user_id = $2`, [ws, userId])).rows[0];
const link = async (anonymousId: string) =>
  (await pool().query(`SELECT user_id FROM identity_links WHERE workspace_id = $1 AND anonymous_id = $2`, [ws, anonymousId])).rows[0]
    ?.user_id;

describe("updateProfiles", () => {
  it("costs no statement for a batch without identify or alias", async () => {
    expect(
      await run([
        { type: "track", userId: "u1", anonymousId: "a1", timestamp: at(0) },
        { type: "page", userId: "u1", anonymousId: null, timestamp: at(0) },
      ]),
    ).toBe(0);
    expect(await run([])).toBe(0);
  });

  it("upserts profiles in one statement and links in one more, however many calls", async () => {
    const calls: ProfileInput[] = Array.from({ length: 200 }, (_, i) => ({
      type: "identify",
      userId: `bulk-${i % 50}`,
      anonymousId: `bulk-anon-${i}`,
      traits: { n: i },
      timestamp: at(i % 60),
    }));
    expect(await run(calls)).toBe(2);
    expect(
      (await pool().query(`SELECT count(*)::int AS n FROM profiles WHERE workspace_id = $1 AND user_id LIKE 'bulk-%'`, [ws])).rows[0].n,
    ).toBe(50);
    expect((await profile("bulk-7")).anonymous_ids.sort()).toEqual(["bulk-anon-107", "bulk-anon-157", "bulk-anon-57", "bulk-anon-7"]);
    expect(await run([{ type: "identify", userId: "no-anon", anonymousId: null, traits: { a: 1 }, timestamp: at(0) }])).toBe(1);
  });

  it("merges traits across batches, the newest timestamp winning and older calls only filling gaps", async () => {
    await run([{ type: "identify", userId: "u1", anonymousId: null, traits: { plan: "free", country: "DE" }, timestamp: at(10) }]);
    await run([{ type: "identify", userId: "u1", anonymousId: null, traits: { plan: "pro" }, timestamp: at(20) }]);
    expect((await profile("u1")).traits).toEqual({ plan: "pro", country: "DE" });
    // A historical import arrives late: it must not roll plan back, but adds what was unknown.
    await run([{ type: "identify", userId: "u1", anonymousId: null, traits: { plan: "trial", company: "Acme" }, timestamp: at(5) }]);
    expect((await profile("u1")).traits).toEqual({ plan: "pro", country: "DE", company: "Acme" });
  });

  it("joins anonymousId by identify and previousId by alias, the latest link winning", async () => {
    await run([{ type: "identify", userId: "u2", anonymousId: "anon-x", traits: {}, timestamp: at(0) }]);
    await run([{ type: "alias", userId: "u2", anonymousId: null, previousId: "anon-y", timestamp: at(1) }]);
    expect(await link("anon-x")).toBe("u2");
    expect(await link("anon-y")).toBe("u2");
    expect((await profile("u2")).anonymous_ids.sort()).toEqual(["anon-x", "anon-y"]);
    // The shared computer: anon-x later logs in as u3.
    await run([{ type: "identify", userId: "u3", anonymousId: "anon-x", traits: {}, timestamp: at(2) }]);
    expect(await link("anon-x")).toBe("u3");
  });

  it("rolls back with the ingest transaction", async () => {
    await expect(
      withTransaction(async (client) => {
        await updateProfiles(client, {
          workspaceId: ws,
          messages: [{ type: "identify", userId: "ghost", anonymousId: "g", traits: { a: 1 }, timestamp: at(0) }],
        });
        throw new Error("ingest failed later in the batch");
      }),
    ).rejects.toThrow();
    expect(await profile("ghost")).toBeUndefined();
    expect(await link("g")).toBeUndefined();
  });
});
