// Issue 12 items 2 and 3 (the hashing half): passwords are hashed with argon2id on libuv's thread
// pool (docs/management-api.md#passwords) — a login flood no longer stalls the event loop that serves
// /v1 — bcrypt hashes from before are upgraded at the next login, and bcrypt's 72-byte truncation is gone.
import bcrypt from "bcryptjs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETUP_CODE, startStack, type Stack } from "../harness/stack";

let stack: Stack;
let db: pg.Pool;
let addressSeq = 0;
// Each call its own client address (the app trusts one proxy), so the per-address throttle stays out of the way.
const nextAddress = () => `198.51.100.${++addressSeq}`;

const OWNER = "owner@example.com";
// 80 bytes; the second shares the first 72 with it (bcrypt would read them as one password).
const LONG = `${"correct horse battery staple ".repeat(3).slice(0, 72)}AAAAAAAA`;
const SAME_72 = `${LONG.slice(0, 72)}BBBBBBBB`;

async function login(email: string, password: string, address = nextAddress()): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  const r = await fetch(`${stack.app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ email, password }),
  });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t };
}

const hashOf = async (email: string) =>
  (await db.query("SELECT password_hash FROM users WHERE email = $1", [email])).rows[0].password_hash as string;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: { EVENTRAIL_TRUSTED_PROXIES: "1" } });
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  const setup = await fetch(`${stack.app.url}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
    body: JSON.stringify({ email: OWNER, password: LONG, code: SETUP_CODE }),
  });
  expect(setup.status).toBe(201);
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

describe("password hashing", () => {
  it("stores argon2id hashes", async () => {
    expect(await hashOf(OWNER)).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it("tells apart two passwords that share their first 72 bytes (no bcrypt truncation)", async () => {
    expect(Buffer.byteLength(LONG)).toBe(80);
    expect(SAME_72.slice(0, 72)).toBe(LONG.slice(0, 72));
    expect((await login(OWNER, SAME_72)).status).toBe(401);
    expect((await login(OWNER, LONG)).status).toBe(200);
  });

  it("verifies a stored bcrypt hash once and upgrades it to argon2id at that login", async () => {
    const ws = (await db.query("SELECT id FROM workspaces LIMIT 1")).rows[0].id;
    const user = await db.query("INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), $1, $2) RETURNING id", [
      "legacy@example.com",
      await bcrypt.hash("an old bcrypt password", 10),
    ]);
    await db.query("INSERT INTO memberships (user_id, workspace_id, role) VALUES ($1, $2, 'admin')", [user.rows[0].id, ws]);
    expect(await hashOf("legacy@example.com")).toMatch(/^\$2[aby]\$10\$/);

    expect((await login("legacy@example.com", "a wrong password")).status).toBe(401);
    expect(await hashOf("legacy@example.com")).toMatch(/^\$2[aby]\$/);
    expect((await login("legacy@example.com", "an old bcrypt password")).status).toBe(200);
    expect(await hashOf("legacy@example.com")).toMatch(/^\$argon2id\$/);
    // The upgraded hash works from then on, and still refuses a wrong password.
    expect((await login("legacy@example.com", "an old bcrypt password")).status).toBe(200);
    expect((await login("legacy@example.com", "a wrong password")).status).toBe(401);
  });

  it("spends as long on an unknown email as on a wrong password (a dummy hash)", async () => {
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 3; i++) {
      unknown.push((await login(`nobody${i}@example.com`, "a wrong password")).ms);
      wrong.push((await login(OWNER, `wrong password ${i}`)).ms);
    }
    expect((await login(OWNER, LONG)).status).toBe(200);
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(2.5);
  });

  it("keeps serving the Tracking API while 16 parallel login loops hash (the event loop is free)", async () => {
    const api = await stack.newWorkspace("flood");
    const source = await api.post<{ writeKey: string }>("/api/sources", { name: "steady" });
    const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`;
    const track = async () => {
      const t = performance.now();
      const r = await fetch(`${stack.app.url}/v1/track`, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ userId: "u1", event: "Steady" }),
      });
      expect(r.status).toBe(200);
      return performance.now() - t;
    };
    const quiet: number[] = [];
    for (let i = 0; i < 20; i++) quiet.push(await track());
    let flooding = true;
    let logins = 0;
    const loops = Array.from({ length: 16 }, async (_, i) => {
      for (let n = 0; flooding && n < 200; n++) {
        await login(`flood${i}-${n}@example.com`, "not the password", `203.0.113.${i}`);
        logins++;
      }
    });
    const underFlood: number[] = [];
    const until = Date.now() + 4_000;
    while (Date.now() < until) underFlood.push(await track());
    flooding = false;
    await Promise.all(loops);
    expect(logins).toBeGreaterThan(16);
    // bcrypt on the event loop made this seconds with 8 loops (issue 12 item 2); the machine is shared, so
    // the bound is loose — `npm run drill -- abuse` takes the real figures.
    expect(median(underFlood)).toBeLessThan(Math.max(4 * median(quiet), 300));
  });
});
