/**
 * A real OAuth 2.0 authorization server for endpoint-authentication tests (docs/endpoint-auth.md):
 * panva's oidc-provider on 127.0.0.1 with client-credentials clients issuing JWT access tokens
 * (RFC 9068) for resource indicators, and a check a receiver runs on the bearer token it gets.
 */
import crypto from "node:crypto";
import http from "node:http";
import type net from "node:net";
import Provider from "oidc-provider";

/** A resource whose tokens live 1 h, and one whose tokens live exactly the 60 s never used (docs/endpoint-auth.md#tokens). */
export const AUDIENCE = "https://api.receiver.test/";
export const SHORT_AUDIENCE = "https://short.receiver.test/";

export type OAuthClient = { clientId: string; clientSecret: string; method: "client_secret_basic" | "client_secret_post" };

export type OAuthServer = {
  issuer: string;
  tokenUrl: string;
  clients: { basic: OAuthClient; post: OAuthClient };
  /** token requests answered or refused, by client id */
  tokenRequests: Map<string, number>;
  /** every access token issued */
  issued: string[];
  /** Why a bearer token is not acceptable for `audience`, or null when it is (signature, issuer, audience, expiry). */
  checkBearer(authorization: string | undefined, audience: string): string | null;
  /** Stops answering (connections refused) until start() */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
};

export async function startOAuthServer(): Promise<OAuthServer> {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "test-key", alg: "RS256", use: "sig" };
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const clients = {
    basic: { clientId: "eventrail-basic", clientSecret: `basic-${crypto.randomBytes(16).toString("hex")}`, method: "client_secret_basic" },
    post: { clientId: "eventrail-post", clientSecret: `post-${crypto.randomBytes(16).toString("hex")}`, method: "client_secret_post" },
  } as const;
  const provider = new Provider(issuer, {
    clients: Object.values(clients).map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: c.method,
    })),
    jwks: { keys: [jwk as never] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: "events:write",
          audience: resource,
          accessTokenTTL: resource === SHORT_AUDIENCE ? 60 : 3600,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
  });
  const tokenRequests = new Map<string, number>();
  const issued: string[] = [];
  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (req.method === "POST" && req.url === "/token") {
      // Whoever the request says it is, by Basic or by form: counted before the provider answers.
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
      const fromBasic = basic ? decodeURIComponent(Buffer.from(basic[1], "base64").toString().split(":")[0]) : null;
      const originalEnd = res.end.bind(res);
      res.end = ((...args: unknown[]) => {
        const id = fromBasic ?? new URLSearchParams(body).get("client_id") ?? "?";
        tokenRequests.set(id, (tokenRequests.get(id) ?? 0) + 1);
        const chunk = args[0];
        if (typeof chunk === "string" || Buffer.isBuffer(chunk)) {
          try {
            const token = JSON.parse(chunk.toString()).access_token;
            if (typeof token === "string") issued.push(token);
          } catch {}
        }
        return originalEnd(...(args as Parameters<typeof originalEnd>));
      }) as typeof res.end;
    }
    callback(req, res);
  });

  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    clients,
    tokenRequests,
    issued,
    checkBearer(authorization, audience) {
      const m = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization ?? "");
      if (!m) return "no bearer JWT";
      const [, h, p, s] = m;
      const header = JSON.parse(Buffer.from(h, "base64url").toString());
      if (header.alg !== "RS256" || header.typ !== "at+jwt") return `not an RS256 JWT access token: ${JSON.stringify(header)}`;
      if (!crypto.verify("sha256", Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, "base64url"))) return "bad signature";
      const claims = JSON.parse(Buffer.from(p, "base64url").toString());
      if (claims.iss !== issuer) return `issuer ${claims.iss}`;
      if (claims.aud !== audience && !(Array.isArray(claims.aud) && claims.aud.includes(audience))) return `audience ${claims.aud}`;
      if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now()) return "expired";
      return null;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async start() {
      await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    },
    async close() {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
