// Issue 12 item 3 and "Throttling" (docs/operations.md#throttling): login per account and per client
// address (a growing delay, then 429 with Retry-After), token creation per workspace and the capture
// receiver per bin — counted in Postgres, so that two web processes on one database share the counts.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETUP_CODE, startApp, startStack, type ApiClient, type Proc, type Stack } from "../harness/stack";

let stack: Stack;
/** A second web process on the same database that trusts no proxy (the default). */
let replica: Proc & { url: string };
let db: pg.Pool;
let api: ApiClient;

const OWNER = { email: "owner@example.com", password: "correct horse battery" };

async function login(url: string, body: { email: string; password: string }, address?: string) {
  const t = performance.now();
  const r = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(address ? { "x-forwarded-for": address } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.json(), ms: performance.now() - t };
}

/** Fifty failed logins, each on its own account, in five groups of ten sent at once; their statuses in order. */
async function failuresFrom(url: string, prefix: string, address: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let group = 0; group < 5; group++) {
    const indexes = Array.from({ length: 10 }, (_, j) => group * 10 + j);
    statuses.push(
      ...(await Promise.all(
        indexes.map((i) => login(url, { email: `${prefix}${i}@example.com`, password: "x" }, address(i)).then((a) => a.status)),
      )),
    );
  }
  return statuses;
}

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: { EVENTRAIL_TRUSTED_PROXIES: "1" } });
  replica = await (async () => startApp(stack.databaseUrl))();
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  const setup = await fetch(`${stack.app.url}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.1" },
    body: JSON.stringify({ ...OWNER, code: SETUP_CODE }),
  });
  expect(setup.status).toBe(201);
  api = await stack.newWorkspace("throttled");
});
afterAll(async () => {
  await db?.end();
  await replica?.stop();
  await stack?.stop();
});

describe("login throttling", () => {
  it("delays one address's failures on an account more and more, then answers that address 429 — even the right password — on every replica", async () => {
    const wrong = { email: OWNER.email, password: "not my password" };
    const answers = [];
    // No X-Forwarded-For: both web processes see this client as 127.0.0.1, the same address.
    for (let i = 1; i <= 10; i++) answers.push(await login(stack.app.url, wrong));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    // Free for three, then 250 ms, 500 ms, 1 s, 2 s … on top of the time every failure takes
    // (lib/auth/login-throttle.ts). Lower bounds hold on a busy machine; the first three only need
    // to be clearly quicker than the 7th.
    expect(answers[4].ms).toBeGreaterThanOrEqual(500);
    expect(answers[6].ms).toBeGreaterThanOrEqual(2_000);
    expect(Math.max(...answers.slice(0, 3).map((a) => a.ms))).toBeLessThan(answers[6].ms - 1_000);

    const blocked = await login(stack.app.url, OWNER);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("too_many_requests");
    expect(blocked.body.error.message).toMatch(/^Too many login attempts for this account from your address; try again in \d+ s$/);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(800);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(900);
    // The count lives in Postgres: the other web process refuses the same address too.
    expect((await login(replica.url, OWNER)).status).toBe(429);
  });

  it("cannot be used to lock someone else out: the account's owner still logs in from another address (issue 38)", async () => {
    // 127.0.0.1 is locked out of this account by the test above; the owner, elsewhere, is not.
    expect((await login(stack.app.url, OWNER)).status).toBe(429);
    expect((await login(stack.app.url, OWNER, "198.51.100.78")).status).toBe(200);
    // Twenty failures spread over twenty addresses are far below the account's own bar. Sent at
    // once: each is held 400 ms at the least, and the counts live in Postgres, not in call order.
    const spread = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        login(stack.app.url, { email: OWNER.email, password: "guess" }, `198.51.101.${i + 1}`).then((a) => a.status),
      ),
    );
    expect(spread).toEqual(Array(20).fill(401));
    expect((await login(stack.app.url, OWNER, "198.51.100.79")).status).toBe(200);
    // The lockout of 127.0.0.1 on this account is its own: an operator clears it by its key.
    await db.query("DELETE FROM rate_limits WHERE key = $1", [`loginPair:127.0.0.1/${OWNER.email}`]);
    expect((await login(stack.app.url, OWNER)).status).toBe(200);
  });

  it("locks the account alone only past a much higher bar: 100 failures from anywhere, then 429 everywhere (issue 38)", async () => {
    // Each from its own address (no address or pair limit applies), in groups sent at once.
    for (let group = 0; group < 5; group++) {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          login(stack.app.url, { email: OWNER.email, password: "spray" }, `198.51.102.${group * 20 + i + 1}`).then((a) => a.status),
        ),
      );
      expect(statuses).toEqual(Array(20).fill(401));
    }
    const blocked = await login(stack.app.url, OWNER, "198.51.100.80");
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.message).toMatch(/^Too many login attempts for this account; try again in \d+ s$/);
    // An operator can clear it (docs/operations.md#throttling).
    await db.query("DELETE FROM rate_limits WHERE key = $1", [`loginAccount:${OWNER.email}`]);
    expect((await login(stack.app.url, OWNER, "198.51.100.80")).status).toBe(200);
  });

  it("answers a failed login in the same time whether or not the account exists (issue 38)", async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    // Alternating, each from its own address so that no growing delay applies.
    for (let i = 1; i <= 8; i++) {
      const k = await login(stack.app.url, { email: OWNER.email, password: `wrong ${i}` }, `198.51.103.${i}`);
      const u = await login(stack.app.url, { email: `nobody${i}@example.com`, password: `wrong ${i}` }, `198.51.104.${i}`);
      expect([k.status, u.status]).toEqual([401, 401]);
      expect(k.body).toEqual(u.body);
      known.push(k.ms);
      unknown.push(u.ms);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `[login timing] failed login, median of 8: existing account ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`,
    );
    // Every failure is answered 400 ms after it arrived at the earliest (docs/operations.md#throttling),
    // which covers what differs between the two (the audit rows of a real account's failure).
    for (const ms of [...known, ...unknown]) expect(ms).toBeGreaterThanOrEqual(400);
    // On an idle machine the medians are within a millisecond or two (408 ms each); the bound leaves
    // room for a loaded one, where the work itself can outlast the 400 ms.
    expect(Math.abs(median(known) - median(unknown))).toBeLessThan(75);
    await db.query("DELETE FROM rate_limits WHERE key LIKE $1", [`%${OWNER.email}`]);
  });

  it("limits failures per client address across accounts, and believes X-Forwarded-For only behind a trusted proxy", async () => {
    // Fifty failures from one address, ten at a time (each is held 400 ms at the least): all 401, as
    // the address's count is taken atomically in Postgres; the 51st, after them, is refused.
    const statuses = await failuresFrom(stack.app.url, "guess", () => "203.0.113.50");
    expect(statuses).toEqual(Array(50).fill(401));
    expect((await login(stack.app.url, { email: "guess50@example.com", password: "x" }, "203.0.113.50")).status).toBe(429);
    // Another address is not affected.
    expect((await login(stack.app.url, { email: "guess0@example.com", password: "x" }, "203.0.113.51")).status).toBe(401);

    // The replica trusts no proxy: its client address is the socket's (127.0.0.1), whatever the header says.
    await db.query("DELETE FROM rate_limits WHERE key = 'loginAddress:127.0.0.1'");
    const forged = await failuresFrom(replica.url, "spoof", (i) => `10.9.${i}.1`);
    expect(forged).toEqual(Array(50).fill(401));
    expect((await login(replica.url, { email: "spoof50@example.com", password: "x" }, "10.9.50.1")).status).toBe(429);
    const keys = (await db.query("SELECT key FROM rate_limits WHERE key LIKE 'loginAddress:%' ORDER BY key")).rows.map((r) => r.key);
    expect(keys).toContain("loginAddress:127.0.0.1");
    expect(keys.filter((k) => k.startsWith("loginAddress:10.9."))).toEqual([]);
  });
});

describe("token creation and capture throttling", () => {
  it("allows 30 new API tokens an hour per workspace, then 429", async () => {
    for (let i = 0; i < 30; i++) expect((await api.request("POST", "/api/tokens", { name: `t${i}` })).status).toBe(201);
    const refused = await api.request("POST", "/api/tokens", { name: "one too many" });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/^Too many API tokens created in this workspace; try again in \d+ s$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await stack.newWorkspace("other");
    expect((await other.request("POST", "/api/tokens", { name: "fine" })).status).toBe(201);
  });

  it("allows 300 requests a minute per capture URL, then 429 with nothing stored", async () => {
    const bin = await api.post<{ id: string }>("/api/capture-bins", { name: "flooded" });
    const url = `${stack.app.url}/c/${bin.id}`;
    for (let i = 0; i < 300; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => fetch(url, { method: "POST", body: "{}" }).then((r) => r.status)));
      expect(batch).toEqual(Array(20).fill(200));
    }
    const refused = await fetch(url, { method: "POST", body: '{"n":301}' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error.message).toMatch(/^Too many requests to this capture URL; try again in \d+ s$/);
    // Refused again (from the process's memory now), and still nothing stored.
    expect((await fetch(url, { method: "POST", body: '{"n":302}' })).status).toBe(429);
    const stored = await db.query("SELECT count(*)::int AS n FROM captured_requests WHERE bin_id = $1", [bin.id]);
    expect(stored.rows[0].n).toBe(300);
    // Another bin is not affected.
    const calm = await api.post<{ id: string }>("/api/capture-bins", { name: "calm" });
    expect((await fetch(`${stack.app.url}/c/${calm.id}`, { method: "POST", body: "{}" })).status).toBe(200);
  });
});
