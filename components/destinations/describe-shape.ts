import type { DestinationDto } from "@/lib/destinations/contract";
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
