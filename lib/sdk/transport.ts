/**
 * One HTTP POST of a batch body over node:http/https with a keep-alive agent, which moves several
 * times the requests per second of global fetch (docs/decisions/0025-sdk-transport.md).
 */
import http from "node:http";
import https from "node:https";

export type HttpResponse = { status: number; retryAfter?: string; body: string };

/** Responses are read to their end so sockets go back to the pool, but at most this much is kept. */
const MAX_RESPONSE_CHARS = 64 * 1024;

export type Transport = {
  post(body: string): Promise<HttpResponse>;
  destroy(): void;
};

/** Rejects on network errors and timeouts; resolves with any HTTP status. */
export function createTransport(opts: {
  url: URL;
  authorization: string;
  userAgent: string;
  timeoutMs: number;
  maxSockets: number;
}): Transport {
  const secure = opts.url.protocol === "https:";
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets })
    : new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets });
  const request = secure ? https.request : http.request;
  return {
    post(body) {
      return new Promise((resolve, reject) => {
        const req = request(
          opts.url,
          {
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body, "utf8"),
              authorization: opts.authorization,
              "user-agent": opts.userAgent,
            },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              if (text.length < MAX_RESPONSE_CHARS) text += chunk;
            });
            res.on("error", reject);
            res.on("end", () => {
              const retryAfter = res.headers["retry-after"];
              resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body: text });
            });
          },
        );
        req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`request timed out after ${opts.timeoutMs} ms`)));
        req.on("error", reject);
        req.end(body);
      });
    },
    destroy: () => agent.destroy(),
  };
}
