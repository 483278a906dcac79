/**
 * Public types of the client library. Hand-written rather than inferred from zod because the library
 * must run with Node's built-ins only (users import it without the app's dependencies).
 */

export type JsonObject = { [key: string]: unknown };

/** Keys are destination names (case-sensitive); `All: false` disables every destination not set to true. */
export type Integrations = { [destination: string]: boolean | JsonObject };

/** Fields every call accepts. One of userId or anonymousId is required (alias needs userId). */
export type CommonFields = {
  userId?: string;
  anonymousId?: string;
  context?: JsonObject;
  integrations?: Integrations;
  /** For historical import: when the call happened. Defaults to now. */
  timestamp?: Date | string;
  /** Idempotency key, at most 100 characters; a uuid is generated when absent. */
  messageId?: string;
};

export type IdentifyParams = CommonFields & { traits?: JsonObject };
export type TrackParams = CommonFields & { event: string; properties?: JsonObject };
export type PageParams = CommonFields & { name?: string; category?: string; properties?: JsonObject };
export type ScreenParams = CommonFields & { name?: string; category?: string; properties?: JsonObject };
export type GroupParams = CommonFields & { groupId: string; traits?: JsonObject };
export type AliasParams = Omit<CommonFields, "userId" | "anonymousId"> & { userId: string; previousId: string };

export type MessageType = "identify" | "track" | "page" | "screen" | "group" | "alias";

/** A message as sent on the wire: the caller's fields plus type, messageId and timestamp. */
export type Message = {
  type: MessageType;
  messageId: string;
  timestamp: string;
  userId?: string;
  anonymousId?: string;
  context: JsonObject;
  integrations?: Integrations;
  [field: string]: unknown;
};

export type AnalyticsOptions = {
  /** Base URL of the Tracking API, e.g. `https://eventrail.example.com`; batches go to `<endpoint>/v1/batch`. */
  endpoint: string;
  /** Messages queued before a flush; 1 sends every call at once. Default 20. */
  flushAt?: number;
  /** Milliseconds after the last flush at which queued messages are flushed anyway. Default 5000. */
  flushAfter?: number;
  /** Most messages the client holds (queued, waiting or in flight) before calls throw `queue_full`. Default 10000. */
  maxQueueSize?: number;
  /** Retries of a batch after its first attempt, on 408/429/5xx and network errors. Default 5. */
  maxRetries?: number;
  /** First backoff delay in ms; doubled each retry, with jitter. Default 100. */
  retryBaseDelay?: number;
  /** Largest backoff delay in ms (also caps honoured Retry-After values). Default 30000. */
  retryMaxDelay?: number;
  /** Per-request timeout in ms; a timeout counts as a network error and is retried. Default 10000. */
  timeout?: number;
  /** Batches sent at the same time. Default 4. */
  maxInFlight?: number;
  /**
   * Debug logging to stderr. Defaults to true when DEBUG names `analytics` (or `*`); a function receives
   * each line instead. Lines never contain the write key.
   */
  debug?: boolean | ((line: string) => void);
};

export type Rejection = { messageId: string; reason: string };

/** Emitted once per batch (or part of one) the server acknowledged. */
export type SuccessEvent = {
  messageIds: string[];
  status: number;
  attempts: number;
  bytes: number;
  /** The sent messages, parsed on demand (the client keeps only their JSON). */
  readonly messages: Message[];
};

/**
 * Emitted when messages are lost: `rejected` (the server refused these messages one by one, the rest of
 * the batch was kept), `http_error` (a status that is not worth retrying, e.g. 400 or 401),
 * `retries_exhausted` (the last attempt still failed with a retryable status or network error).
 */
export type FailureEvent = {
  code: "rejected" | "http_error" | "retries_exhausted";
  error: Error;
  messageIds: string[];
  status?: number;
  attempts: number;
  /** Per-message reasons when code is `rejected`. */
  rejections?: Rejection[];
  readonly messages: Message[];
};

export type FlushResult = { sent: number; failed: number };
