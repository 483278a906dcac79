// Dashboard sessions expire (docs/management-api.md#sessions): a session past its expiry is
// refused everywhere a session is read (the API principal, the dashboard), however valid its token.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, findSession } from "../lib/auth/sessions";
import { pool } from "../lib/platform/db";
import { insertWorkspace, useTestDatabase } from "./harness/audience-fixtures";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
beforeAll(async () => {
  db = await useTestDatabase();
});
afterAll(() => db?.close());

describe("sessions", () => {
  it("are found until they expire, and refused from then on", async () => {
    const { workspaceId } = await insertWorkspace();
    const userId = randomUUID();
    await pool().query(`INSERT INTO users (id, email, password_hash) VALUES ($1, 'ann@example.com', 'x')`, [userId]);
    const session = await createSession({ userId, workspaceId });
    expect(await findSession(session.token)).toMatchObject({ userId, workspaceId, email: "ann@example.com" });

    const expireAt = (at: string) => pool().query(`UPDATE sessions SET expires_at = ${at} WHERE user_id = $1`, [userId]);
    await expireAt("now() + interval '1 minute'");
    expect(await findSession(session.token)).toMatchObject({ userId });
    await expireAt("now() - interval '1 second'");
    expect(await findSession(session.token)).toBeNull();
  });
});
