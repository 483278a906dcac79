import "server-only";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { errorBody, type TrackingAnswer } from "./route-handler";
import { findSourceByWriteKey } from "./write-key";

/**
 * What Segment's CDN serves to its client libraries, served by Eventrail so that they send here with
 * no more configuration than a host (docs/tracking-api.md#segment-clients):
 * - the settings document analytics-next, analytics-kotlin, analytics-swift and
 *   analytics-react-native fetch for a write key before sending anything;
 * - the browser library's standalone bundle (the snippet's `analytics.min.js`) and the chunks it
 *   loads lazily from the same CDN path, read from the installed @segment/analytics-next package.
 */

const json = (status: number, body: unknown, cacheControl: string): TrackingAnswer => ({
  status,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", "cache-control": cacheControl },
});

/**
 * Settings are looked up per key for a minute in this process: a page view fetches them once, and
 * a burst of page views must not become a burst of queries. Only keys of enabled sources are kept
 * (guessed keys cannot fill it), at most this many, the oldest dropped first; a disabled or rotated
 * key stops being served within the minute.
 */
const SETTINGS_CACHE_SIZE = 1000;
const SETTINGS_TTL_MS = 60_000;
const known = new Map<string, number>();

async function isServedKey(writeKey: string): Promise<boolean> {
  const expires = known.get(writeKey);
  if (expires !== undefined && expires > Date.now()) return true;
  known.delete(writeKey);
  const source = await findSourceByWriteKey(writeKey);
  if (!source?.enabled) return false;
  if (known.size >= SETTINGS_CACHE_SIZE) known.delete(known.keys().next().value!);
  known.set(writeKey, Date.now() + SETTINGS_TTL_MS);
  return true;
}

/** `apiHost` as Segment writes it: host and path of the Tracking API, without the scheme. */
export function apiHostOf(publicBaseUrl: string): { apiHost: string; protocol: "http" | "https" } {
  const url = new URL(publicBaseUrl);
  const base = `${url.host}${url.pathname}`.replace(/\/+$/, "");
  return { apiHost: `${base}/v1`, protocol: url.protocol === "http:" ? "http" : "https" };
}

/**
 * The settings document of a write key, in the shape of Segment's CDN (cdn.segment.com/v1/projects/
 * <key>/settings): its `integrations["Segment.io"]` carries the key and where to send; one
 * destination only (Segment.io), so the browser library loads no device-mode code, and no remote
 * telemetry (`metrics.sampleRate` 0).
 */
export function settingsDocument(writeKey: string, publicBaseUrl: string) {
  const { apiHost, protocol } = apiHostOf(publicBaseUrl);
  return {
    integrations: {
      "Segment.io": {
        apiKey: writeKey,
        apiHost,
        protocol,
        unbundledIntegrations: [],
        addBundledMetadata: true,
        maybeBundledConfigIds: {},
      },
    },
    plan: {
      track: { __default: { enabled: true, integrations: {} } },
      identify: { __default: { enabled: true } },
      group: { __default: { enabled: true } },
    },
    edgeFunction: {},
    analyticsNextEnabled: true,
    middlewareSettings: {},
    enabledMiddleware: {},
    metrics: { sampleRate: 0, host: apiHost },
    legacyVideoPluginsEnabled: false,
    remotePlugins: [],
  };
}

/**
 * GET /v1/projects/:writeKey/settings. An unknown or disabled key: 404 with code and message. A
 * configured public URL makes the document the same for every request: any cache may keep it. One
 * built from the request's Host differs by Host, so only the browser keeps it, and `Vary: Host`
 * says why (docs/tracking-api.md#segment-clients): a shared cache that ignored Host would
 * otherwise give every browser the apiHost one request named.
 */
export async function answerSettings(writeKey: string, base: { url: string; fromHost: boolean }): Promise<TrackingAnswer> {
  if (!(await isServedKey(writeKey))) {
    return json(404, errorBody("not_found", "No enabled source has this write key"), "no-store");
  }
  const answer = json(200, settingsDocument(writeKey, base.url), base.fromHost ? "private, max-age=60" : "public, max-age=60");
  if (base.fromHost) answer.headers.vary = "Host";
  return answer;
}

const JS_HEADERS = {
  "content-type": "application/javascript; charset=utf-8",
  "x-content-type-options": "nosniff",
  "access-control-allow-origin": "*",
};

/**
 * The bundle finds its CDN (where its chunks and the settings are) from its own <script> tag only
 * when that is https; before it runs, this tells it the origin it was loaded from, so that an http
 * install (local development) works with the same snippet.
 */
const CDN_FROM_SCRIPT =
  '(function(){try{var s=document.currentScript,k=(s&&s.getAttribute("data-global-segment-analytics-key"))||"analytics",' +
  "a=window[k],m=s&&/^(.*)\\/analytics\\.js\\/v1\\//.exec(s.src);if(a&&m&&!a._cdn)a._cdn=m[1]}catch(e){}})();\n";

const CHUNK = /^[A-Za-z0-9_-]+\.bundle\.[0-9a-f]+\.js$/;

type Bundles = { standalone: string; chunks: Map<string, string> };
let bundles: Bundles | null = null;

/** Read once, on first use, from the installed package: its version is the one npm installed. */
function loadBundles(): Bundles {
  if (bundles) return bundles;
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve("@segment/analytics-next/package.json")), "dist", "umd");
  const chunks = new Map<string, string>();
  for (const file of fs.readdirSync(dir)) if (CHUNK.test(file)) chunks.set(file, fs.readFileSync(path.join(dir, file), "utf8"));
  bundles = { standalone: CDN_FROM_SCRIPT + fs.readFileSync(path.join(dir, "standalone.js"), "utf8"), chunks };
  return bundles;
}

/** Reads the bundles now rather than on the first page view; for the edge to call at start. */
export function preloadBrowserBundles(): void {
  loadBundles();
}

/**
 * GET /analytics.js/v1/:writeKey/analytics.min.js: the standalone bundle, the same for every key
 * (it reads the key from the snippet). Cached an hour: an upgrade of the package reaches pages within it.
 */
export function answerBrowserBundle(): TrackingAnswer {
  return { status: 200, body: loadBundles().standalone, headers: { ...JS_HEADERS, "cache-control": "public, max-age=3600" } };
}

/** GET /analytics-next/bundles/:file: a chunk, named by its content hash, so cached for good. */
export function answerBrowserChunk(file: string): TrackingAnswer {
  const chunk = CHUNK.test(file) ? loadBundles().chunks.get(file) : undefined;
  if (chunk === undefined) return json(404, errorBody("not_found", "No such file"), "no-store");
  return { status: 200, body: chunk, headers: { ...JS_HEADERS, "cache-control": "public, max-age=31536000, immutable" } };
}
