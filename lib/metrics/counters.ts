import "server-only";
import client from "prom-client";
import { processWide } from "../platform/runtime";

/**
 * This process's counters and histograms. They are not scraped from the process itself: each
 * process pushes a snapshot of them to Postgres (push.ts) and GET /metrics on any web process
 * aggregates every process's snapshot (collect.ts), so a scrape reports the whole installation
 * however many web processes and workers there are.
 */
/** Attempt durations: webhook timeouts are 5 s, so the buckets resolve well below and up to it. */
export const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Tracking API answers: a few ms when healthy; the upper buckets show a database that is slow to commit. */
export const TRACKING_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

function create() {
  const registry = new client.Registry();
  return {
    registry,
    trackingMessages: new client.Counter({
      name: "eventrail_tracking_messages_total",
      help: "Messages received by the Tracking API in requests it answered 200, by source, type and result (accepted, rejected)",
      labelNames: ["source", "type", "result"] as const,
      registers: [registry],
    }),
    trackingDuplicates: new client.Counter({
      name: "eventrail_tracking_duplicates_total",
      help: "Accepted messages whose (source, messageId) was already stored: acknowledged, not delivered again",
      labelNames: ["source"] as const,
      registers: [registry],
    }),
    trackingRejections: new client.Counter({
      name: "eventrail_tracking_rejections_total",
      help: "Rejected messages by source and reason category (lib/tracking/rejection-category.ts); requests refused as a whole from a known source count once as invalid_request",
      labelNames: ["source", "reason"] as const,
      registers: [registry],
    }),
    trackingViolations: new client.Counter({
      name: "eventrail_tracking_violations_total",
      help: "Tracking plan violations of stored messages, by source, event (a planned track event's name, (unplanned), or the call type) and rule (the JSON Schema keyword, or unplanned)",
      labelNames: ["source", "event", "rule"] as const,
      registers: [registry],
    }),
    trackingRequests: new client.Counter({
      name: "eventrail_tracking_requests_total",
      help: "Tracking API requests by endpoint and HTTP status",
      labelNames: ["endpoint", "status"] as const,
      registers: [registry],
    }),
    trackingDuration: new client.Histogram({
      name: "eventrail_tracking_request_duration_seconds",
      help: "Tracking API request duration, first byte read to answer ready (after the commit), by endpoint",
      labelNames: ["endpoint"] as const,
      buckets: TRACKING_BUCKETS,
      registers: [registry],
    }),
    attempts: new client.Counter({
      name: "eventrail_delivery_attempts_total",
      help: "Webhook HTTP attempts by destination and outcome (success, retry, failed)",
      labelNames: ["destination", "outcome"] as const,
      registers: [registry],
    }),
    attemptDuration: new client.Histogram({
      name: "eventrail_delivery_attempt_duration_seconds",
      help: "Webhook HTTP attempt duration, connect to last byte, by destination",
      labelNames: ["destination"] as const,
      buckets: ATTEMPT_BUCKETS,
      registers: [registry],
    }),
    deliveries: new client.Counter({
      name: "eventrail_deliveries_total",
      help: "Deliveries that reached a final state, by destination and state (delivered, failed)",
      labelNames: ["destination", "state"] as const,
      registers: [registry],
    }),
  };
}

/** This process's counters (runtime.ts keeps one set per process; memory only, nothing to close). */
export function metrics(): ReturnType<typeof create> {
  return processWide("metric counters", create);
}
