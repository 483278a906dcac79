// The runner of the hostile-input corpus (hostile-inputs.cases.ts): each case is sent to a real
// `next start` on a fresh database; its status and error (the field it names, or its text) are checked,
// every counted table keeps its row count unless the case says what it stores, and /api/health
// still answers within HEALTH_MS afterwards, so no input crashes, stalls or half-stores.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, startStack, type ApiClient, type Stack } from "../harness/stack";
import { basic } from "../harness/tracking";
import { CASES, COUNTED_TABLES, type Fixtures, type HostileCase, type Table } from "./hostile-inputs.cases";

/** /api/health must answer this fast after every case (it asks Postgres and the queue). */
const HEALTH_MS = 2_000;

let stack: Stack;
let db: pg.Pool;
let api: ApiClient;
let fixtures: Fixtures;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

async function counts(): Promise<Record<Table, number>> {
  const sql = `SELECT ${COUNTED_TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(", ")}`;
  return (await db.query(sql)).rows[0];
}

function requestOf(c: HostileCase): { url: string; init: RequestInit } {
  const path = typeof c.path === "function" ? c.path(fixtures) : c.path;
  const raw = typeof c.body === "function" ? (c.body as (f: Fixtures) => unknown)(fixtures) : c.body;
  const headers: Record<string, string> = {};
  if (c.auth === undefined || c.auth === "token") headers.authorization = `Bearer ${api.token}`;
  if (c.auth === "admin") headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (c.auth === "writeKey") headers.authorization = basic(fixtures.writeKey);
  let body: BodyInit | undefined;
  if (raw !== undefined) {
    body = typeof raw === "string" || raw instanceof Uint8Array ? (raw as BodyInit) : JSON.stringify(raw);
    headers["content-type"] = "application/json";
  }
  return { url: stack.app.url + path, init: { method: c.method, headers: { ...headers, ...c.headers }, body, redirect: "manual" } };
}

async function run(c: HostileCase): Promise<void> {
  const before = await counts();
  const { url, init } = requestOf(c);
  const res = await fetch(url, init);
  const text = await res.text();
  let json: { error?: { message?: string; fields?: Record<string, string[]> } } | undefined;
  try {
    json = JSON.parse(text);
  } catch {}

  expect({ case: c.name, status: res.status }).toEqual({ case: c.name, status: c.status });
  if (c.field) expect(Object.keys(json?.error?.fields ?? {}), `${c.name}: ${text.slice(0, 300)}`).toContain(c.field);
  if (c.status === 422 && !c.field) expect(json?.error?.fields, `${c.name}: fields named`).toBeTruthy();
  if (c.text) expect(json?.error?.message ?? text, c.name).toMatch(c.text);
  if (c.status >= 400 && url.includes("/api/"))
    expect(text, `${c.name}: no raw database error`).not.toMatch(/violates|invalid byte|Prisma|at \w+ \(/);

  const after = await counts();
  const grew = Object.fromEntries(COUNTED_TABLES.map((t) => [t, after[t] - before[t]]).filter(([, d]) => d !== 0));
  expect({ case: c.name, stored: grew }).toEqual({ case: c.name, stored: c.stores ?? {} });

  const started = performance.now();
  const health = await fetch(`${stack.app.url}/api/health`);
  // 503 with the queue "missing" is a fresh install without a worker yet; the database must answer.
  expect((await health.json()).database, `${c.name}: /api/health after it`).toBe("ok");
  expect(performance.now() - started, `${c.name}: /api/health after it`).toBeLessThan(HEALTH_MS);
}

describe("the corpus", () => {
  it("has at least 150 cases across /v1, /api, /c and the auth pages", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
    const path = (c: HostileCase) => (typeof c.path === "string" ? c.path : c.path({ bin: "b" } as Fixtures));
    for (const prefix of ["/v1/", "/api/", "/c/", "/api/auth/", "/login", "/setup"]) {
      expect(
        CASES.some((c) => path(c).startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });
});

describe("on a fresh install, before any workspace exists", () => {
  for (const c of CASES.filter((x) => x.freshInstall)) it(c.name, () => run(c));
});

describe("hostile inputs", () => {
  beforeAll(async () => {
    api = await stack.newWorkspace("corpus");
    const source = await api.post("/api/sources", { name: "corpus source" });
    const destination = await api.post("/api/destinations", {
      name: "corpus destination",
      urls: ["http://127.0.0.1:9/hook"],
      headers: [{ name: "X-Api-Key", value: "corpus-key-0123456789" }],
      sharedSecret: "corpus-secret",
      sourceIds: [source.id],
    });
    const audience = await api.post("/api/audiences", {
      name: "corpus audience",
      sourceIds: [source.id],
      condition: { trait: "plan", op: "exists" },
    });
    const bin = await api.post("/api/capture-bins", { name: "corpus bin" });
    const deletion = await api.post("/api/deletions", { userIds: ["nobody"] });
    fixtures = {
      source: source.id,
      writeKey: source.writeKey,
      destination: destination.id,
      audience: audience.id,
      bin: bin.id,
      deletion: deletion.id,
    };
  });

  for (const c of CASES.filter((x) => !x.freshInstall)) it(c.name, () => run(c));
});
