// Issue 12 item 6: a fresh install can only be claimed with the one-time setup code
// (docs/management-api.md#first-run-setup). Without EVENTRAIL_SETUP_CODE the first process that needs
// a code stores one in Postgres, so every web replica checks the same one; the setup consumes it.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, startStack, type Proc, type Stack } from "../harness/stack";

let stack: Stack;
let replica: Proc & { url: string };
let db: pg.Pool;

// No preset code: the install makes its own.
const NO_PRESET = { EVENTRAIL_SETUP_CODE: "" };

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: NO_PRESET });
  replica = await startApp(stack.databaseUrl, NO_PRESET);
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await replica?.stop();
  await stack?.stop();
});

const setup = (url: string, code?: string) =>
  fetch(`${url}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery", ...(code === undefined ? {} : { code }) }),
  });

describe("first-run claim", () => {
  it("refuses a setup without the code, or with a wrong one, with 403 saying where the code is", async () => {
    for (const code of [undefined, "", "a-guessed-code-0000000000"]) {
      const res = await setup(stack.app.url, code);
      expect(res.status).toBe(403);
      const { error } = await res.json();
      expect(error.code).toBe("forbidden");
      expect(error.message).toContain("npm start");
      expect(error.message).toContain("/setup?code=");
      expect(error.message).toContain("EVENTRAIL_SETUP_CODE");
    }
    expect((await db.query("SELECT count(*)::int AS n FROM users")).rows[0].n).toBe(0);
  });

  it("accepts the stored code on another replica, then forgets it; a second setup is a 409", async () => {
    const { rows } = await db.query("SELECT code FROM setup_codes");
    expect(rows).toHaveLength(1);
    expect(rows[0].code).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const res = await setup(replica.url, rows[0].code);
    expect(res.status).toBe(201);
    expect((await db.query("SELECT count(*)::int AS n FROM setup_codes")).rows[0].n).toBe(0);
    expect((await setup(stack.app.url, rows[0].code)).status).toBe(409);
  });

  it("sends /setup to the login page once the owner exists", async () => {
    const page = await fetch(`${stack.app.url}/setup`, { redirect: "manual" });
    expect([307, 308]).toContain(page.status);
    expect(page.headers.get("location")).toMatch(/\/login$/);
  });
});
