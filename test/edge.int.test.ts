/**
 * The edge in front of the real web app (issue 34, docs/edge.md): the ingest process and `next
 * start` as `npm start` runs them, Postgres. Every short path stores its call; CORS rides on
 * lib/tracking's own answers; a smuggled request never reaches Next and no client gets another's
 * answer; two slow uploads, or 20,000 idle sockets from one address, leave the dashboard and /v1 answering.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { waitFor } from "./harness/stack";
import { Agent, fetch as ufetch } from "undici";
import { basic, createSource, postTracking, type TestSource } from "./harness/tracking";

let s: IngestStack;
let src: TestSource;
beforeAll(async () => {
  s = await startIngestStack("edge");
  src = await createSource(s.api, "edge");
  // /api/health answers 200 once pg-boss's schema exists, which the first stored call installs:
  // each test below probes it, and must pass alone (-t) as well as after the others.
  const setup = await createSource(s.api, "edge-setup");
  const first = await postTracking(s.ingest.url, "/v1/track", { type: "track", event: "E", userId: "u" }, { writeKey: setup.writeKey });
  expect(first.status).toBe(200);
  await waitFor(async () => (await fetch(`${s.ingest.url}/api/health`)).status === 200, { what: "/api/health to answer 200" });
});
afterAll(() => s?.stop());

const stored = async () =>
  (
    await s.db.query<{ message_id: string; type: string }>(
      "SELECT message_id, type FROM messages WHERE source_id = $1 ORDER BY message_id",
      [src.id],
    )
  ).rows;

describe("/v1 for every Segment client", () => {
  it("stores a call on every short path, with a trailing slash, and on /v1/import", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["/v1/t", { type: "track", event: "E", userId: "u" }],
      ["/v1/i", { type: "identify", userId: "u" }],
      ["/v1/p", { type: "page", name: "Home", userId: "u" }],
      ["/v1/s", { type: "screen", name: "Home", userId: "u" }],
      ["/v1/g", { type: "group", groupId: "g", userId: "u" }],
      ["/v1/a", { type: "alias", previousId: "p", userId: "u" }],
      ["/v1/track/", { type: "track", event: "E", userId: "u" }],
    ];
    for (const [path, call] of calls) {
      const res = await postTracking(
        s.ingest.url,
        path,
        { ...call, messageId: `m${path.replaceAll("/", "-")}` },
        { writeKey: src.writeKey },
      );
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    for (const path of ["/v1/b", "/v1/import/", "/v1/batch/"]) {
      const res = await postTracking(
        s.ingest.url,
        path,
        { batch: [{ type: "track", event: "E", userId: "u", messageId: `m${path.replaceAll("/", "-")}` }] },
        { writeKey: src.writeKey },
      );
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    expect((await stored()).map((r) => `${r.message_id} ${r.type}`)).toEqual([
      "m-v1-a alias",
      "m-v1-b track",
      "m-v1-batch- track",
      "m-v1-g group",
      "m-v1-i identify",
      "m-v1-import- track",
      "m-v1-p page",
      "m-v1-s screen",
      "m-v1-t track",
      "m-v1-track- track",
    ]);
  });

  it("lib/tracking's refusals carry CORS, so a browser can read them", async () => {
    const res = await postTracking(
      s.ingest.url,
      "/v1/t",
      { type: "track", event: "E", userId: "u" },
      { writeKey: "nope", headers: { origin: "https://shop.example" } },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

/** Raw bytes on a new connection; what came back once the server closed it or went quiet. */
function exchange(port: number, bytes: string, idleMs = 1_500): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), idleMs);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(bytes);
  });
}

describe("smuggling, against Next", () => {
  it("a chunked body on GET hiding a request is refused; the next client gets its own answer", async () => {
    const port = Number(new URL(s.ingest.url).port);
    const hidden = "GET /login HTTP/1.1\r\nHost: h\r\n\r\n";
    const body = `${(hidden.length + 2_000_000).toString(16)}\r\n${hidden}${"x".repeat(2_000_000)}\r\n0\r\n\r\n`;
    const attacker = await exchange(port, `GET /api/health HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${body}`);
    expect(attacker).toMatch(/^HTTP\/1\.1 400 /);
    expect(attacker.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      const victim = await fetch(`${s.ingest.url}/api/health`);
      expect(victim.headers.get("content-type")).toMatch(/json/);
      expect(await victim.json()).toHaveProperty("ok");
    }
  });
});

describe("slow clients, against Next", () => {
  it("two slow uploads leave /api/health answering in well under a second", async () => {
    const port = Number(new URL(s.ingest.url).port);
    const uploads = [net.connect(port, "127.0.0.1"), net.connect(port, "127.0.0.1")];
    const trickles = uploads.map((u) => {
      u.on("error", () => {});
      u.write("POST /api/sources HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n");
      return setInterval(() => u.writable && u.write("x".repeat(100)), 50);
    });
    try {
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const res = await fetch(`${s.ingest.url}/api/health`);
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(1_000);
      }
    } finally {
      for (const t of trickles) clearInterval(t);
      for (const u of uploads) u.destroy();
    }
  });

  it("20,000 idle sockets from one address are cut to its cap; /v1 and /api/health from other addresses are answered meanwhile", async () => {
    const port = Number(new URL(s.ingest.url).port);
    const target = 20_000;
    let opened = 0;
    let closedByEdge = 0;
    let settled = 0;
    /** How the sockets that never connected ended, by error code. */
    const failed = new Map<string, number>();
    const held = new Set<net.Socket>();
    // At most 500 connecting at once; the edge closes what passes its per-address cap (256), so
    // this process never holds more than a few hundred file descriptors.
    const flood = new Promise<void>((done) => {
      let started = 0;
      const next = () => {
        while (started < target && started - settled < 500) {
          started++;
          const sock = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.3" });
          held.add(sock);
          let connected = false;
          sock.on("error", (err: NodeJS.ErrnoException) => {
            if (!connected) failed.set(err.code ?? "?", (failed.get(err.code ?? "?") ?? 0) + 1);
          });
          // A socket is settled once connected (the edge may keep it) or, failing that, closed.
          sock.once("connect", () => {
            connected = true;
            opened++;
            settled++;
            next();
          });
          sock.once("close", () => {
            held.delete(sock);
            if (connected) closedByEdge++;
            else {
              settled++;
              next();
            }
          });
        }
        if (settled >= target) done();
      };
      next();
    });
    const answered: number[] = [];
    const probe = async () => {
      const [v1, health] = await Promise.all([
        ufetch(`${s.ingest.url}/v1/track`, {
          method: "POST",
          headers: { authorization: basic(src.writeKey), "content-type": "application/json" },
          body: JSON.stringify({ type: "track", event: "During flood", userId: "u", messageId: `flood-${answered.length}` }),
          dispatcher: fromV1,
        }),
        ufetch(`${s.ingest.url}/api/health`, { dispatcher: fromHealth }),
      ]);
      await Promise.all([v1.arrayBuffer(), health.arrayBuffer()]);
      answered.push(v1.status, health.status);
    };
    const fromV1 = new Agent({ connect: { localAddress: "127.0.0.1" } });
    const fromHealth = new Agent({ connect: { localAddress: "127.0.0.2" } });
    try {
      let flooding = true;
      const probes = (async () => {
        while (flooding) await probe();
      })();
      await flood;
      flooding = false;
      await probes;
      await probe();
      // Every one reached the edge: it connected, or the edge reset it as it did (over the cap, it is
      // refused before Node's HTTP layer, often before the client saw its connect) — none was
      // refused by the kernel or left hanging.
      expect(opened + (failed.get("ECONNRESET") ?? 0)).toBe(target);
      expect(opened).toBeGreaterThanOrEqual(256);
      // Every socket past the cap was closed by the edge; the rest stay open.
      await expect.poll(() => held.size).toBeLessThanOrEqual(256);
      expect(closedByEdge).toBeGreaterThanOrEqual(opened - 256);
      expect(answered.length).toBeGreaterThanOrEqual(4);
      expect(new Set(answered)).toEqual(new Set([200]));
    } finally {
      for (const sock of held) sock.destroy();
      await Promise.all([fromV1.close(), fromHealth.close()]);
    }
  });
});
