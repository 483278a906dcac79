import type { DestinationDto } from "@/lib/destinations/contract";
import { hasTemplate } from "@/lib/webhooks/url-template";

/**
 * What a destination sends, in words, for its page (docs/dashboard.md#destinations): each setting the
 * edit form holds beyond URLs and secrets — method, body, number form, URL templates, batching, rate
 * limit — so a reader sees the shape without opening the form. Pure.
 */
export function describeShape(d: Pick<DestinationDto, "method" | "mapping" | "numbers" | "urls" | "batch" | "rateLimit">): {
  request: string;
  numbers: string;
  batching: string;
  rateLimit: string;
} {
  const templated = d.urls.filter(hasTemplate).length;
  const body = d.mapping ? "a mapped body" : "the default body";
  const urls = templated > 0 ? `, ${templated === 1 ? "1 URL" : `${templated} URLs`} filled from each event` : "";
  const { perSecond, concurrency } = d.rateLimit;
  const limits = [perSecond !== null ? `${perSecond} per second` : null, concurrency !== null ? `${concurrency} at once` : null].filter(
    Boolean,
  );
  return {
    request: `${d.method} with ${body}${urls}`,
    numbers: d.numbers === "exact" ? "Exact digits (verify over the raw body)" : "As JavaScript writes them (default)",
    batching: d.batch ? `Up to ${d.batch.size} events per request, sent within ${d.batch.maxWaitMs} ms` : "One event per request",
    rateLimit: limits.length ? `At most ${limits.join(", ")}` : "No limit",
  };
}
