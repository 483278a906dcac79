// House rule (docs/webhooks.md#request): one function sends every webhook request — postWebhook
// (lib/webhooks/post.ts), called by the delivery engine's round only (lib/delivery/round.ts, whose
// rounds processDeliveryBatch in lib/delivery/process.ts runs), so
// live deliveries, retries, replays, test-sends and deletion and audience notices share its limiter,
// outcome rules and attempt log. No other server module opens an HTTP client, except the ones named
// below, which do not send webhooks.
import { describe, expect, it } from "vitest";
import { readSource, serverSources } from "../../test/harness/server-sources";

const serverCode = serverSources();
const read = readSource;

/** An HTTP client: undici, fetch, or node:http(s)'s request/get. */
const HTTP_CLIENT = /from ["']undici["']|\bfetch\(|\bhttps?\.(?:request|get)\(/;

/** Modules allowed an HTTP client, and why none of them sends a webhook. */
const ALLOWED: Record<string, string> = {
  "lib/webhooks/post.ts": "the one sender",
  "lib/webhooks/dispatchers.ts": "its connection pools and the outbound guard",
  "lib/ingest/web-connections.ts": "the edge's connections to the web app, for the requests it passes on",
  "lib/webhooks/oauth2-tokens.ts":
    "a destination's OAuth2 token requests (docs/endpoint-auth.md#token-requests), over the same guarded pools; not webhooks, made for the round",
  "lib/sdk/transport.ts": "the Node SDK sending tracking calls to an Eventrail server",
};

describe("one sender for webhooks", () => {
  it("no module but the sender and the named non-webhook ones uses an HTTP client", () => {
    const clients = serverCode.filter((f) => HTTP_CLIENT.test(read(f)));
    expect(clients.filter((f) => !(f in ALLOWED))).toEqual([]);
    expect(clients).toContain("lib/webhooks/post.ts");
  });

  it("postWebhook is called by the delivery engine's round, and otherwise only for the workspace's alert notices", () => {
    const callers = serverCode.filter((f) => f !== "lib/webhooks/post.ts" && /\bpostWebhook\(/.test(read(f)));
    // lib/alerts/notify.ts: the operator's Slack-compatible alert notice (docs/alerts.md#notices), not
    // a destination's webhook: it borrows the sender's guarded pools, and is neither retried nor logged.
    expect(callers.sort()).toEqual(["lib/alerts/notify.ts", "lib/delivery/round.ts"]);
  });

  it("a round is sent by processDeliveryBatch only, which the worker and the test-send call", () => {
    expect(serverCode.filter((f) => f !== "lib/delivery/round.ts" && /\bsendRound\(/.test(read(f)))).toEqual(["lib/delivery/process.ts"]);
    const batchCallers = serverCode.filter((f) => f !== "lib/delivery/process.ts" && /\bprocessDeliveryBatch\(/.test(read(f)));
    expect(batchCallers.sort()).toEqual(["lib/delivery/lanes.ts", "lib/destinations/test-send.ts"]);
  });
});
