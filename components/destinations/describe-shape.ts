import { plural } from "@/components/ui/format";
import type { DestinationDto, DestinationFilter } from "@/lib/destinations/contract";
import { FILTER_TYPES } from "@/lib/destinations/filter-types";
import type { TokenAuthMethod } from "@/lib/webhooks/endpoint-auth";
import { hasTemplate } from "@/lib/webhooks/url-template";

type Shaped = Pick<DestinationDto, "method" | "mapping" | "numbers" | "urls" | "batch" | "rateLimit" | "ordering" | "maxHoldMinutes">;

const listed = (names: string[], max = 4) =>
  names.length > max ? `${names.slice(0, max).join(", ")} and ${names.length - max} more` : names.join(", ");

/**
 * What a destination sends, in words, for its page (docs/dashboard.md#destinations): each setting the
 * edit form holds beyond URLs and secrets — method, body, URL templates, number form, batching, rate
 * limit, ordering — so a reader sees the shape without opening the form; "None"/"Off" when unset. Pure.
 */
export function describeShape(d: Shaped): {
  method: string;
  body: string;
  urlTemplates: string;
  numbers: string;
  batching: string;
  rateLimit: string;
  ordering: string;
} {
  const templated = d.urls.filter(hasTemplate).length;
  const keys = d.mapping ? Object.keys(d.mapping) : [];
  const body = !d.mapping
    ? "Default body (the call as received)"
    : keys.every((k) => k.startsWith("@"))
      ? `Mapped with ${listed(keys)}`
      : `Mapped into ${keys.length === 1 ? "1 field" : `${keys.length} fields`}: ${listed(keys)}`;
  const { perSecond, concurrency } = d.rateLimit;
  const limits = [perSecond !== null ? `${perSecond} per second` : null, concurrency !== null ? `${concurrency} at once` : null].filter(
    Boolean,
  );
  return {
    method: d.method,
    body,
    urlTemplates:
      templated === 0
        ? "None"
        : `${templated === d.urls.length ? (templated === 1 ? "The URL is" : `All ${templated} URLs are`) : `${templated} of ${d.urls.length} URLs ${templated === 1 ? "is" : "are"}`} filled from each event`,
    numbers: d.numbers === "exact" ? "Exact digits (verify over the raw body)" : "As JavaScript writes them (default)",
    batching: d.batch ? `Up to ${d.batch.size} events per request, sent within ${d.batch.maxWaitMs} ms` : "Off: one event per request",
    rateLimit: limits.length ? `At most ${limits.join(", ")}` : "None",
    ordering:
      d.ordering === "perUser"
        ? `Per user: a user's message waits for their earlier ones (at most ${d.maxHoldMinutes === 1 ? "1 minute" : `${d.maxHoldMinutes} minutes`})`
        : "Off: each message goes as soon as it can",
  };
}

/** "All calls", or "track and identify calls; track events except Heartbeat, Ping": a filter as people say it. */
export function describeFilter(f: DestinationFilter): string {
  const extras = [
    f.where ? "with conditions" : "",
    f.samplePercent < 100 ? `${f.samplePercent} % sampled` : "",
    f.drop.length ? `dropping ${f.drop.join(", ")}` : "",
    f.allow.length ? `allowing only ${f.allow.join(", ")}` : "",
  ].filter(Boolean);
  const tail = extras.length ? `; ${extras.join("; ")}` : "";
  const all = f.types.length === FILTER_TYPES.length;
  if (all && f.events.mode === "all") return `All calls${tail}`;
  const types = all ? "All call types" : `${f.types.slice(0, -1).join(", ")}${f.types.length > 1 ? " and " : ""}${f.types.at(-1)} calls`;
  if (f.events.mode === "all") return `${types}${tail}`;
  const names = f.events.names.join(", ");
  return `${types}; track events ${f.events.mode === "include" ? "only" : "except"} ${names}${tail}`;
}

/** "1 hour", "4 hours", "1 day 6 hours": the retry window as people say it. */
export function describeMinutes(raw: string): string | null {
  const m = Number(raw);
  if (!Number.isInteger(m) || m <= 0) return null;
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  const part = (n: number, unit: string) => (n ? plural(n, unit) : "");
  return [part(d, "day"), part(h, "hour"), part(min, "minute")].filter(Boolean).join(" ");
}

/** How a token request sends the client's credentials, in words. */
export const METHOD_LABELS: Record<TokenAuthMethod, string> = {
  client_secret_basic: "HTTP Basic (client_secret_basic)",
  client_secret_post: "In the form body (client_secret_post)",
};
