// "Send test" goes through the delivery engine, in a production-like configuration: private
// networks refused, and the web app on an internal port behind the public one (inside it PORT is
// the internal port, EVENTRAIL_PUBLIC_PORT the public one). A receiver stands in for the public
// port's /c/<id> capture receiver, and the last test puts a real ingest server there. The app recognises its own capture URL on the public port,
// refuses its internal port, says how to allow private targets, and a replay of a test goes only
// where the test went (docs/webhooks.md#outbound-safety, #replay).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, freePort, startIngest, startStack, waitFor, type Stack } from "./harness/stack";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";

let stack: Stack;
let a: ApiClient;
let publicPort: Receiver;
let real: Receiver;

beforeAll(async () => {
  publicPort = await startReceiver();
  real = await startReceiver();
  stack = await startStack({
    workers: 1,
    env: { EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "0", EVENTRAIL_PUBLIC_PORT: String(publicPort.port) },
  });
  a = await stack.newWorkspace("test-send");
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([publicPort?.close(), real?.close()]);
});

describe("send test, production-like", () => {
  it("a test to the app's own capture URL on the public port is delivered, signed, and its replay goes there only", async () => {
    const dest = await a.post("/api/destinations", { name: "Real", urls: [`http://127.0.0.1:${real.port}/hook`], sharedSecret: "s3cret" });
    const capture = `http://127.0.0.1:${publicPort.port}/c/abcdefghijklmnopqrstuvwx`;
    const { attempts } = await a.post(`/api/destinations/${dest.id}/test`, { type: "track", url: capture });
    expect(attempts).toEqual([expect.objectContaining({ url: capture, outcome: "success", responseStatus: 200, attemptNumber: 1 })]);
    expect(publicPort.requests.map((r) => r.path)).toEqual(["/c/abcdefghijklmnopqrstuvwx"]);
    expect(publicPort.requests[0].headers["x-signature"]).toMatch(/^[0-9a-f]{40}$/);
    const messageRowId = attempts[0].messageRowId;
    expect((await a.get(`/api/messages/${messageRowId}`)).deliveries[0]).toMatchObject({ state: "delivered", lastStatus: 200 });

    // The replay is delivered by the worker, to the capture URL only: never to the destination's own URL.
    expect(await a.post("/api/messages/replay", { ids: [messageRowId], includeDelivered: true })).toEqual({ replayed: 1 });
    const replayed = await waitFor(
      async () => {
        const m = await a.get(`/api/messages/${messageRowId}`);
        return m.deliveries.find((d: any) => d.replayNumber === 1 && d.state !== "pending");
      },
      { what: "the replay to settle" },
    );
    expect(replayed).toMatchObject({ state: "delivered", lastStatus: 200 });
    expect(publicPort.requests).toHaveLength(2);
    expect(publicPort.requests[1].body).toBe(publicPort.requests[0].body);
    expect(real.requests).toHaveLength(0);
  });

  it("refuses the web app's internal port, even for a capture path", async () => {
    const internal = new URL(stack.app.url);
    const dest = await a.post("/api/destinations", { name: "Internal", urls: [`${stack.app.url}/c/abcdefghijklmnopqrstuvwx`] });
    const { attempts } = await a.post(`/api/destinations/${dest.id}/test`, { type: "track" });
    expect(attempts).toEqual([expect.objectContaining({ outcome: "failed", errorKind: "ssrf", responseStatus: null })]);
    expect(attempts[0].errorText).toContain(`${internal.port} is this server's internal port`);
  });

  it("a refused private target's error says how to allow it, and saving such a URL warns, naming the setting", async () => {
    const url = `http://127.0.0.1:${real.port}/hook`;
    const created = await a.post("/api/destinations", { name: "Loopback", urls: ["https://example.com/hook", url] });
    expect(created.warnings).toEqual([{ field: "urls.1", message: expect.stringContaining("EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1") }]);
    const patched = await a.patch(`/api/destinations/${created.id}`, { urls: [`http://localhost:${real.port}/x`] });
    expect(patched.warnings).toEqual([{ field: "urls.0", message: expect.stringContaining("EVENTRAIL_ALLOW_PRIVATE_NETWORKS") }]);
    const capture = await a.patch(`/api/destinations/${created.id}`, { urls: [`http://127.0.0.1:${publicPort.port}/c/abc`] });
    expect(capture.warnings).toEqual([]);

    const { attempts } = await a.post(`/api/destinations/${created.id}/test`, { type: "identify", url });
    expect(attempts).toEqual([expect.objectContaining({ outcome: "failed", errorKind: "ssrf" })]);
    expect(attempts[0].errorText).toMatch(/private or reserved.*EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1/);
    const byName = await a.post(`/api/destinations/${created.id}/test`, { type: "identify", url: `http://localhost:${real.port}/hook` });
    expect(byName.attempts[0].errorText).toMatch(/resolves to .*EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1/);
    expect(real.requests).toHaveLength(0);
  });
});

describe("send test behind a real edge (npm start's layout)", () => {
  it("a test to a built-in capture URL goes through the public port, is captured with a valid signature, and so is its replay", async () => {
    // The web app sits behind the ingest server on the public port, as npm start runs them.
    const port = await freePort();
    const edged = await startStack({ workers: 1, env: { EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "0", EVENTRAIL_PUBLIC_PORT: String(port) } });
    const edge = await startIngest(edged.databaseUrl, { webUrl: edged.app.url, port });
    try {
      const direct = await edged.newWorkspace("edge");
      const api = new ApiClient(edge.url, direct.token, direct.workspaceId);
      const bin = await api.post("/api/capture-bins", { name: "inbox" });
      expect(bin.url).toBe(`${edge.url}/c/${bin.id}`);
      const dest = await api.post("/api/destinations", {
        name: "Receiver",
        urls: ["https://receiver.example/hook"],
        sharedSecret: "edge-secret",
        standardWebhooks: true,
      });
      const { attempts } = await api.post(`/api/destinations/${dest.id}/test`, { type: "track", url: bin.url });
      expect(attempts).toEqual([expect.objectContaining({ url: bin.url, outcome: "success", responseStatus: 200 })]);
      const [captured] = (await api.get(`/api/capture-bins/${bin.id}/requests`)).requests;
      expect(captured).toMatchObject({ method: "POST", path: `/c/${bin.id}` });
      const check = await api.post(`/api/capture-bins/${bin.id}/requests/${captured.id}/verify`, { destinationId: dest.id });
      expect(check).toMatchObject({ xSignature: { state: "valid" }, standardWebhooks: { state: "valid" }, checkedAgainst: "chosen" });
      // Without a destination named, the capture URL finds the one that sent it (its webhook-id's message).
      const found = await api.post(`/api/capture-bins/${bin.id}/requests/${captured.id}/verify`, {});
      expect(found).toMatchObject({
        destinationId: dest.id,
        destinationName: "Receiver",
        checkedAgainst: "sender",
        xSignature: { state: "valid", detail: "HMAC-SHA1 of the body matches the destination's current shared secret" },
        standardWebhooks: { state: "valid" },
      });
      // During a rotation, the check says which secret matched.
      await api.post(`/api/destinations/${dest.id}/rotate-secret`, { secret: "sharedSecret", graceMinutes: 60, value: "edge-secret-2" });
      const rotated = await api.post(`/api/capture-bins/${bin.id}/requests/${captured.id}/verify`, {});
      expect(rotated.xSignature.detail).toBe(
        "HMAC-SHA1 of the body matches the destination's previous shared secret, still signing during its rotation",
      );

      await api.post("/api/messages/replay", { ids: [attempts[0].messageRowId], includeDelivered: true });
      await waitFor(async () => (await api.get(`/api/capture-bins/${bin.id}/requests`)).requests.length === 2, {
        what: "the replay to reach the capture URL",
      });
      // The worker records the replay's attempt once the capture URL has answered it: wait for the
      // record, not only for the capture (a loaded machine read the message in between).
      const replay = await waitFor(
        async () => {
          const m = await api.get(`/api/messages/${attempts[0].messageRowId}`);
          return m.attempts.length >= 2 && m;
        },
        { what: "the replay's attempt to be recorded" },
      );
      expect(replay.attempts.map((x: any) => x.url)).toEqual([bin.url, bin.url]);
    } finally {
      await edge.stop();
      await edged.stop();
    }
  });
});
