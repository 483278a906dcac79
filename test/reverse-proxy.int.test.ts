// Deployment behind a TLS-terminating reverse proxy (issue 39 item 7): Debian's nginx with exactly the
// server block docs/operations.md#behind-nginx shows, in front of `npm start` with
// EVENTRAIL_TRUSTED_PROXIES=1. The client connects from 127.0.0.7, a loopback address of its own, so
// that its address differs from the proxy's (127.0.0.1).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../scripts/lib/build";
import { TS_NODE_ARGS } from "../scripts/lib/runtime";
import { createTestDatabase } from "./harness/pg";
import { ADMIN_TOKEN, freePort, waitFor } from "./harness/stack";

const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
const CLIENT = "127.0.0.7";
const SPOOFED = "203.0.113.9";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-nginx-"));
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let start: ChildProcess | undefined;
let nginx: ChildProcess | undefined;
let proxyPort: number;
let cert: string;
let startOutput = "";

/** The server block in docs/operations.md, pointed at this test's port, certificate and `npm start`. */
function documentedServerBlock(appPort: number): string {
  const doc = fs.readFileSync(path.join(root, "docs/operations.md"), "utf8");
  const block = /<!-- nginx-config -->\s*```nginx\n([\s\S]*?)```\s*<!-- \/nginx-config -->/.exec(doc)?.[1];
  if (!block) throw new Error("docs/operations.md has no nginx-config block");
  const replace = (text: string, from: string, to: string) => {
    if (!text.includes(from)) throw new Error(`the documented nginx config no longer has "${from}"`);
    return text.replace(from, to);
  };
  let conf = replace(block, "listen 443 ssl;", `listen 127.0.0.1:${proxyPort} ssl;`);
  conf = replace(conf, "/etc/ssl/certs/events.example.com.pem", path.join(dir, "cert.pem"));
  conf = replace(conf, "/etc/ssl/private/events.example.com.key", path.join(dir, "key.pem"));
  return replace(conf, "http://127.0.0.1:3000", `http://127.0.0.1:${appPort}`);
}

function request(
  method: string,
  urlPath: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: proxyPort,
        path: urlPath,
        method,
        localAddress: CLIENT,
        ca: cert,
        servername: "events.example.com",
        headers: { host: "events.example.com", ...(body ? { "content-type": "application/json" } : {}), ...opts.headers },
        timeout: 15_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.once("timeout", () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.once("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=events.example.com",
      "-addext",
      "subjectAltName=DNS:events.example.com",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  cert = fs.readFileSync(path.join(dir, "cert.pem"), "utf8");

  db = await createTestDatabase({ migrate: false });
  const appPort = await freePort();
  proxyPort = await freePort();
  start = spawn(process.execPath, [...TS_NODE_ARGS, "scripts/start.ts"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(appPort),
      HOST: "127.0.0.1",
      EVENTRAIL_TRUSTED_PROXIES: "1",
      EVENTRAIL_PUBLIC_URL: "https://events.example.com",
      EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  start.stdout!.on("data", (d) => (startOutput += d));
  start.stderr!.on("data", (d) => (startOutput += d));
  await waitFor(
    async () => {
      if (start!.exitCode !== null) throw new Error(`npm start exited: ${startOutput}`);
      return startOutput.includes("[eventrail] ready:");
    },
    { timeoutMs: 120_000, what: "npm start to be ready" },
  );

  // One process, as root, everything it writes in the test's directory.
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${documentedServerBlock(appPort)}
}
`,
  );
  let nginxOutput = "";
  nginx = spawn(NGINX, ["-p", dir, "-c", path.join(dir, "nginx.conf")], { stdio: ["ignore", "pipe", "pipe"] });
  nginx.stderr!.on("data", (d) => (nginxOutput += d));
  await waitFor(
    async () => {
      if (nginx!.exitCode !== null) throw new Error(`nginx exited: ${nginxOutput}`);
      return (await request("GET", "/api/health")).status === 200;
    },
    { timeoutMs: 30_000, what: "nginx to pass /api/health" },
  );
}, 180_000);

afterAll(async () => {
  const exited = (c: ChildProcess | undefined) =>
    c && c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : Promise.resolve();
  const stopping = [exited(nginx), exited(start)];
  nginx?.kill("SIGTERM");
  start?.kill("SIGTERM");
  await Promise.all(stopping);
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("behind nginx (docs/operations.md#behind-nginx)", () => {
  it("takes events on /v1, and throttles and audits by the address nginx saw, not one the client wrote", async () => {
    const spoof = { "x-forwarded-for": SPOOFED };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, ...spoof };
    const ws = await request("POST", "/api/workspaces", { headers: admin, body: { name: "proxied" } });
    expect(ws.status).toBe(201);
    const source = await request("POST", "/api/sources", {
      headers: { authorization: `Bearer ${ws.body.token}`, ...spoof },
      body: { name: "behind nginx" },
    });
    expect(source.status).toBe(201);

    // The Tracking API through the proxy, the write key as Basic user name.
    const basic = `Basic ${Buffer.from(`${source.body.writeKey}:`).toString("base64")}`;
    const tracked = await request("POST", "/v1/track", {
      headers: { authorization: basic, ...spoof },
      body: { userId: "u1", event: "Through nginx" },
    });
    expect(tracked).toEqual({ status: 200, body: { success: true } });

    // What Segment's browser and mobile libraries load first, through the same proxy: the settings
    // document points them back at the public URL, and the snippet's bundle is served.
    const settings = await request("GET", `/v1/projects/${source.body.writeKey}/settings`, { headers: spoof });
    expect(settings.status).toBe(200);
    expect(settings.body.integrations["Segment.io"]).toMatchObject({
      apiKey: source.body.writeKey,
      apiHost: "events.example.com/v1",
      protocol: "https",
    });
    const bundle = await request("GET", `/analytics.js/v1/${source.body.writeKey}/analytics.min.js`, { headers: spoof });
    expect(bundle.status).toBe(200);
    expect(typeof bundle.body === "string" && bundle.body.length > 10_000).toBe(true);

    // A failed login: the per-address throttle counts the client nginx saw.
    const login = await request("POST", "/api/auth/login", {
      headers: spoof,
      body: { email: "nobody@example.com", password: "wrong password here" },
    });
    expect(login.status).toBe(401);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const keys = (await client.query<{ key: string }>("SELECT key FROM rate_limits WHERE key LIKE 'loginAddress:%'")).rows.map(
        (r) => r.key,
      );
      expect(keys).toEqual([`loginAddress:${CLIENT}`]);
      const audited = (
        await client.query<{ address: string | null }>("SELECT DISTINCT address FROM audit_events WHERE workspace_id = $1", [
          ws.body.workspace.id,
        ])
      ).rows.map((r) => r.address);
      expect(audited).toEqual([CLIENT]);
      // The event's context.ip is the address nginx saw, not the one the client wrote.
      const ips = (
        await client.query<{ ip: string | null }>("SELECT payload->'context'->>'ip' AS ip FROM messages WHERE source_id = $1", [
          source.body.id,
        ])
      ).rows.map((r) => r.ip);
      expect(ips).toEqual([CLIENT]);
    } finally {
      await client.end();
    }
  }, 60_000);
});
