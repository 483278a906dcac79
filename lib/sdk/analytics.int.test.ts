/**
 * The client against real HTTP servers on 127.0.0.1. Waits are for conditions, never fixed sleeps;
 * the only time assertions are lower bounds (a slow machine can only make gaps longer).
 */
import { afterEach, describe, expect, it } from "vitest";
import { Analytics } from "./analytics";
import { AnalyticsError } from "./errors";
import { startSink, until, type Sink } from "./testing/sink";
import type { FailureEvent, SuccessEvent } from "./types";

const WRITE_KEY = "wk_test_0123456789";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function sink(...args: Parameters<typeof startSink>): Promise<Sink> {
  const s = await startSink(...args);
  cleanups.push(() => s.close());
  return s;
}

function client(endpoint: string, options: Partial<ConstructorParameters<typeof Analytics>[1]> = {}) {
  const c = new Analytics(WRITE_KEY, { endpoint, flushAfter: 3_600_000, retryBaseDelay: 10, retryMaxDelay: 100, ...options });
  const successes: SuccessEvent[] = [];
  const failures: FailureEvent[] = [];
  c.on("success", (e) => successes.push(e));
  c.on("failure", (e) => failures.push(e));
  cleanups.push(() => c.close());
  return { c, successes, failures };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Analytics: what goes on the wire", () => {
  it("posts batches to <endpoint>/v1/batch with Basic auth (write key, empty password), messageId, timestamp and sentAt", async () => {
    const s = await sink();
    const { c } = client(`${s.url}/prefix/`);
    const id = c.track({ userId: "u1", event: "Signed Up", properties: { plan: "pro" } });
    c.identify({ userId: "u1", traits: { email: "a@example.com" } });
    c.page({ anonymousId: "a1", name: "Home" });
    c.screen({ userId: "u1", name: "Settings" });
    c.group({ userId: "u1", groupId: "g1", traits: { name: "Acme" } });
    c.alias({ userId: "u1", previousId: "a1" });
    await c.flush();
    expect(s.requests).toHaveLength(1);
    const [req] = s.requests;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/prefix/v1/batch");
    expect(req.authorization).toBe(`Basic ${Buffer.from(`${WRITE_KEY}:`).toString("base64")}`);
    expect(req.body.batch.map((m) => m.type)).toEqual(["track", "identify", "page", "screen", "group", "alias"]);
    expect(req.body.batch[0]).toMatchObject({ messageId: id, userId: "u1", event: "Signed Up", properties: { plan: "pro" } });
    expect(new Set(req.body.batch.map((m) => m.messageId)).size).toBe(6);
    for (const m of req.body.batch) expect(m.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(req.body.sentAt)).toBeGreaterThanOrEqual(Date.parse(req.body.batch[0].timestamp));
  });

  it("throws a clear error at the call for an invalid message and queues nothing", () => {
    const { c } = client("http://127.0.0.1:9");
    expect(() => c.track({ userId: "u" } as never)).toThrow(
      new AnalyticsError("invalid_message", "track: event is required (a non-empty string)"),
    );
    expect(() => c.alias({ userId: "u" } as never)).toThrow("alias: previousId is required");
    expect(() => c.group({ anonymousId: "a" } as never)).toThrow("group: groupId is required");
    expect(() => c.identify({ traits: {} })).toThrow("identify: userId or anonymousId is required");
    expect(c.pending).toBe(0);
  });

  it("refuses bad options at construction", () => {
    expect(() => new Analytics("", { endpoint: "http://x" })).toThrow("a write key is required");
    expect(() => new Analytics("k", { endpoint: "not a url" })).toThrow("endpoint is not a URL");
    expect(() => new Analytics("k", { endpoint: "http://x", flushAt: 0 })).toThrow("flushAt must be an integer ≥ 1");
  });
});

describe("Analytics: when it flushes", () => {
  it("flushes when flushAt messages are queued, and keeps the rest until then", async () => {
    const s = await sink();
    const { c } = client(s.url, { flushAt: 5 });
    for (let i = 0; i < 12; i++) c.track({ userId: "u", event: `E${i}` });
    await until(() => s.requests.length === 2, "two full batches");
    expect(s.requests.map((r) => r.body.batch.length)).toEqual([5, 5]);
    // The sink has read both batches; the client counts them done once it has read the answers.
    await until(() => c.pending === 2, "both batches acknowledged");
    await c.flush();
    expect(s.requests.map((r) => r.body.batch.length)).toEqual([5, 5, 2]);
    // The two full batches may overtake each other on the wire; within a batch, call order holds.
    const batches = s.requests
      .map((r) => r.body.batch.map((m) => m.event as string))
      .sort((a, b) => Number(a[0].slice(1)) - Number(b[0].slice(1)));
    expect(batches).toEqual([
      ["E0", "E1", "E2", "E3", "E4"],
      ["E5", "E6", "E7", "E8", "E9"],
      ["E10", "E11"],
    ]);
  });

  it("flushAt: 1 sends each call at once", async () => {
    const s = await sink();
    const { c } = client(s.url, { flushAt: 1 });
    c.track({ userId: "u", event: "A" });
    await until(() => s.requests.length === 1, "the first call");
    c.track({ userId: "u", event: "B" });
    await until(() => s.requests.length === 2, "the second call");
    expect(s.requests.map((r) => r.body.batch.map((m) => m.event))).toEqual([["A"], ["B"]]);
  });

  it("flushes flushAfter ms after the last flush without any flush() call", async () => {
    const s = await sink();
    const started = Date.now();
    const { c } = client(s.url, { flushAt: 100, flushAfter: 300 });
    c.track({ userId: "u", event: "A" });
    c.track({ userId: "u", event: "B" });
    c.identify({ userId: "u" });
    await until(() => s.requests.length === 1, "the timed flush");
    expect(s.requests[0].body.batch).toHaveLength(3);
    expect(s.requests[0].at - started).toBeGreaterThanOrEqual(300);
    // The queue empties once the sink has answered, which is after it saw the request.
    await until(() => c.pending === 0, "the timed flush acknowledged");
    expect(s.requests).toHaveLength(1);
  });

  it("splits a flush into batches that stay under 500 KB", async () => {
    const s = await sink();
    const { c } = client(s.url, { flushAt: 1000 });
    for (let i = 0; i < 60; i++) c.track({ userId: "u", event: "Big", messageId: `big-${i}`, properties: { pad: "x".repeat(30_000) } });
    const result = await c.flush();
    expect(result).toEqual({ sent: 60, failed: 0 });
    expect(s.requests.length).toBe(4);
    for (const r of s.requests) expect(r.bytes).toBeLessThanOrEqual(500_000);
    // Batches travel concurrently, so only the set is fixed; each batch keeps call order inside.
    expect(s.messageIds()).toHaveLength(60);
    expect(new Set(s.messageIds())).toEqual(new Set(Array.from({ length: 60 }, (_, i) => `big-${i}`)));
    for (const r of s.requests) {
      const n = r.body.batch.map((m) => Number(m.messageId.slice(4)));
      expect(n).toEqual(n.map((_, i) => n[0] + i));
    }
  });

  it("refuses a message over 32 KB at the call", async () => {
    const s = await sink();
    const { c } = client(s.url);
    expect(() => c.track({ userId: "u", event: "Huge", properties: { pad: "x".repeat(33 * 1024) } })).toThrow(
      /over the 32768-byte \(32 KB\) limit/,
    );
    expect(c.pending).toBe(0);
    c.track({ userId: "u", event: "Fine", properties: { pad: "x".repeat(31 * 1024) } });
    expect(await c.flush()).toEqual({ sent: 1, failed: 0 });
  });
});

describe("Analytics: retries", () => {
  it("retries a 500 with growing backoff until it is acknowledged", async () => {
    const s = await sink((_, i) => (i < 3 ? { status: 500 } : { status: 200 }));
    const { c, successes } = client(s.url, { retryBaseDelay: 40, retryMaxDelay: 1000 });
    c.track({ userId: "u", event: "E" });
    expect(await c.flush()).toEqual({ sent: 1, failed: 0 });
    expect(s.requests).toHaveLength(4);
    expect(new Set(s.messageIds()).size).toBe(1);
    const gaps = s.requests.slice(1).map((r, i) => r.at - s.requests[i].at);
    // Equal jitter: each wait is at least half its exponential step (40, 80, 160 ms).
    expect(gaps[0]).toBeGreaterThanOrEqual(20);
    expect(gaps[1]).toBeGreaterThanOrEqual(40);
    expect(gaps[2]).toBeGreaterThanOrEqual(80);
    expect(successes[0].attempts).toBe(4);
    // Each attempt carries its own sentAt, so the server's clock-skew correction stays right.
    expect(s.requests[3].body.sentAt > s.requests[0].body.sentAt).toBe(true);
  });

  it("honours Retry-After on 429 and 503", async () => {
    const s = await sink((_, i) =>
      i === 0
        ? { status: 429, headers: { "retry-after": "1" } }
        : i === 1
          ? { status: 503, headers: { "retry-after": "1" } }
          : { status: 200 },
    );
    const { c } = client(s.url);
    c.track({ userId: "u", event: "E" });
    expect(await c.flush()).toEqual({ sent: 1, failed: 0 });
    expect(s.requests).toHaveLength(3);
    expect(s.requests[1].at - s.requests[0].at).toBeGreaterThanOrEqual(1000);
    expect(s.requests[2].at - s.requests[1].at).toBeGreaterThanOrEqual(1000);
  });

  it("retries network errors (ECONNREFUSED) until the server comes up", async () => {
    const probe = await startSink();
    const port = probe.port;
    await probe.close();
    const lines: string[] = [];
    const { c } = client(`http://127.0.0.1:${port}`, {
      maxRetries: 50,
      retryBaseDelay: 20,
      retryMaxDelay: 50,
      debug: (l) => lines.push(l),
    });
    c.track({ userId: "u", event: "E", messageId: "survivor" });
    const flushed = c.flush();
    await until(() => lines.some((l) => l.includes("ECONNREFUSED")), "a refused connection");
    const s = await sink(undefined, port);
    expect(await flushed).toEqual({ sent: 1, failed: 0 });
    expect(s.messageIds()).toEqual(["survivor"]);
  });

  it("retries a request that times out", async () => {
    const s = await sink((_, i) => (i === 0 ? "hang" : { status: 200 }));
    const { c, successes } = client(s.url, { timeout: 200 });
    c.track({ userId: "u", event: "E" });
    expect(await c.flush()).toEqual({ sent: 1, failed: 0 });
    expect(s.requests).toHaveLength(2);
    expect(successes[0].attempts).toBe(2);
  });

  it("gives up after maxRetries and reports the loss", async () => {
    const probe = await startSink();
    await probe.close();
    const { c, failures } = client(probe.url, { maxRetries: 2 });
    const id = c.track({ userId: "u", event: "E" });
    expect(await c.flush()).toEqual({ sent: 0, failed: 1 });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ code: "retries_exhausted", attempts: 3, messageIds: [id] });
    expect(failures[0].error.message).toMatch(/gave up after 3 attempts: network error: .*ECONNREFUSED/);
    expect(failures[0].messages[0]).toMatchObject({ type: "track", event: "E", messageId: id });
  });

  it("does not retry a 400 (or 401) and says why", async () => {
    const s = await sink((req) =>
      req.body.batch[0].event === "Bad"
        ? { status: 400, body: { error: { code: "invalid_json", message: "body is not JSON" } } }
        : { status: 401, body: { error: { code: "unauthorized", message: "unknown write key" } } },
    );
    const { c, failures } = client(s.url);
    c.track({ userId: "u", event: "Bad" });
    expect(await c.flush()).toEqual({ sent: 0, failed: 1 });
    c.track({ userId: "u", event: "Unauthorized" });
    expect(await c.flush()).toEqual({ sent: 0, failed: 1 });
    expect(s.requests).toHaveLength(2);
    expect(failures.map((f) => [f.code, f.status, f.attempts, f.error.message])).toEqual([
      ["http_error", 400, 1, "HTTP 400: body is not JSON"],
      ["http_error", 401, 1, "HTTP 401: unknown write key"],
    ]);
  });

  it("reports a loss as a process warning when nobody listens for failures", async () => {
    const s = await sink(() => ({ status: 400, body: { error: { message: "nope" } } }));
    const c = new Analytics(WRITE_KEY, { endpoint: s.url });
    cleanups.push(() => c.close());
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    cleanups.push(async () => process.off("warning", onWarning));
    c.track({ userId: "u", event: "E" });
    expect(await c.flush()).toEqual({ sent: 0, failed: 1 });
    const warning = await until(() => warnings.find((w) => (w as Error & { code?: string }).code === "ANALYTICS_FAILURE"), "the warning");
    expect(warning!.message).toBe("1 messages lost (http_error): HTTP 400: nope");
  });

  it("reports messages the server rejected one by one and counts the rest as sent", async () => {
    const s = await sink((req) => ({
      status: 200,
      body: { success: true, rejected: [{ index: 1, messageId: req.body.batch[1].messageId, reason: "track without event" }] },
    }));
    const { c, successes, failures } = client(s.url);
    const ids = [c.track({ userId: "u", event: "A" }), c.track({ userId: "u", event: "B" }), c.track({ userId: "u", event: "C" })];
    expect(await c.flush()).toEqual({ sent: 2, failed: 1 });
    expect(successes[0].messageIds).toEqual([ids[0], ids[2]]);
    expect(failures[0]).toMatchObject({
      code: "rejected",
      messageIds: [ids[1]],
      rejections: [{ messageId: ids[1], reason: "track without event" }],
    });
    expect(failures[0].error.message).toBe("1 of 3 messages rejected by the server: track without event");
  });
});

describe("Analytics: flush, close and the bounded queue", () => {
  it("flush() resolves only once the server has acknowledged", async () => {
    const gate = deferred();
    const s = await sink(async () => {
      await gate.promise;
      return { status: 200 };
    });
    const { c } = client(s.url);
    c.track({ userId: "u", event: "E" });
    let settled = false;
    const flushed = c.flush().then((r) => {
      settled = true;
      return r;
    });
    await until(() => s.requests.length === 1, "the request");
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    gate.resolve();
    expect(await flushed).toEqual({ sent: 1, failed: 0 });
  });

  it("close() with hundreds queued loses nothing, even through 503s, and refuses later calls", async () => {
    const s = await sink((_, i) => (i % 3 === 0 ? { status: 503, headers: { "retry-after": "0" } } : { status: 200 }));
    const { c, failures } = client(s.url, { flushAt: 50, maxInFlight: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 700; i++) {
      ids.push(i % 2 ? c.track({ userId: `u${i}`, event: "E" }) : c.identify({ anonymousId: `a${i}`, traits: { i } }));
    }
    expect(await c.close()).toMatchObject({ failed: 0 });
    expect(failures).toEqual([]);
    expect(new Set(s.messageIds())).toEqual(new Set(ids));
    expect(c.pending).toBe(0);
    expect(() => c.track({ userId: "u", event: "late" })).toThrow(new AnalyticsError("closed", "track: the client is closed"));
    expect(await c.close()).toMatchObject({ failed: 0 });
  });

  it("bounds the queue with a clear error, and accepts calls again once it drains", async () => {
    const gate = deferred();
    const s = await sink(async () => {
      await gate.promise;
      return { status: 200 };
    });
    const { c } = client(s.url, { flushAt: 5, maxQueueSize: 10 });
    for (let i = 0; i < 10; i++) c.track({ userId: "u", event: "E" });
    let error: AnalyticsError | undefined;
    try {
      c.track({ userId: "u", event: "one too many" });
    } catch (err) {
      error = err as AnalyticsError;
    }
    expect(error?.code).toBe("queue_full");
    expect(error?.message).toContain("queue is full (10 messages not yet acknowledged, maxQueueSize 10)");
    gate.resolve();
    await c.flush();
    c.track({ userId: "u", event: "accepted again" });
    await c.flush();
    expect(s.messageIds()).toHaveLength(11);
  });

  it("logs queued, flushed, retried, sent and failed under debug, never the write key", async () => {
    const s = await sink((_, i) =>
      i === 0 ? { status: 500 } : { status: 401, body: { error: { message: `write key ${WRITE_KEY} is unknown` } } },
    );
    const lines: string[] = [];
    const { c, failures } = client(s.url, { debug: (l) => lines.push(l) });
    c.track({ userId: "u", event: "E" });
    await c.flush();
    const text = lines.join("\n");
    for (const word of ["queued track", "flushing batch #1", "retrying batch #1", "failed batch #1"]) expect(text).toContain(word);
    expect(text).not.toContain(WRITE_KEY);
    expect(text).not.toContain(Buffer.from(`${WRITE_KEY}:`).toString("base64"));
    expect(failures[0].error.message).toBe("HTTP 401: write key [write key] is unknown");
  });
});
