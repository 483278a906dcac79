/**
 * The client: calls are validated and queued synchronously; batches go out in the background when
 * `flushAt` messages are queued or `flushAfter` ms have passed since the last flush.
 *
 * Process lifetime: the flush timer and retry waits are unref'd, so the client never keeps a process
 * alive by itself (a request already on the wire does, until it ends). Awaiting flush() or close()
 * keeps the process alive until that work has settled.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { splitIntoBatches } from "./batches";
import { createDebugLog } from "./debug";
import { AnalyticsError } from "./errors";
import { buildMessage, LIBRARY, type QueuedMessage, type Stamp } from "./message";
import { resolveOptions, type ResolvedOptions } from "./options";
import { sendBatch, type BatchOutcome } from "./send-batch";
import { createTransport, type Transport } from "./transport";
import type {
  AliasParams,
  AnalyticsOptions,
  FailureEvent,
  FlushResult,
  GroupParams,
  IdentifyParams,
  Message,
  MessageType,
  PageParams,
  ScreenParams,
  SuccessEvent,
  TrackParams,
} from "./types";

type Batch = { id: number; messages: QueuedMessage[]; done: Promise<FlushResult>; settle: (r: FlushResult) => void };

type Events = { success: [SuccessEvent]; failure: [FailureEvent] };

const STAMP: Stamp = { now: () => new Date(), newId: randomUUID };

const parsed = (messages: QueuedMessage[]): Message[] => messages.map((m) => JSON.parse(m.json) as Message);

function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export class Analytics extends EventEmitter<Events> {
  readonly #o: ResolvedOptions;
  readonly #log: ((line: string) => void) | undefined;
  readonly #redact: (text: string) => string;
  readonly #transport: Transport;
  #queue: QueuedMessage[] = [];
  readonly #waiting: Batch[] = [];
  readonly #unsettled = new Set<Batch>();
  #inFlight = 0;
  /** Messages queued, waiting for a connection, or in flight: what maxQueueSize bounds. */
  #held = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastFlushAt = Date.now();
  #nextBatchId = 1;
  #closing: Promise<FlushResult> | undefined;

  constructor(writeKey: string, options: AnalyticsOptions) {
    super();
    this.#o = resolveOptions(writeKey, options);
    // Defence in depth: no log line or error may carry the write key, even if a server echoes it back.
    // (A very short key would match ordinary words; real write keys are long.)
    this.#redact = writeKey.length >= 8 ? (text) => text.split(writeKey).join("[write key]") : (text) => text;
    const log = createDebugLog(this.#o.debug);
    this.#log = log && ((line) => log(this.#redact(line)));
    this.#transport = createTransport({
      url: this.#o.url,
      authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`,
      userAgent: `${LIBRARY.name}/${LIBRARY.version}`,
      timeoutMs: this.#o.timeout,
      maxSockets: this.#o.maxInFlight,
    });
    this.#log?.(
      `client for ${this.#o.url.origin}${this.#o.url.pathname}: flushAt ${this.#o.flushAt}, flushAfter ${this.#o.flushAfter} ms, maxQueueSize ${this.#o.maxQueueSize}`,
    );
  }

  /** Each call returns the message's messageId; it throws AnalyticsError for invalid input, a full queue or a closed client. */
  identify(params: IdentifyParams): string {
    return this.#enqueue("identify", params);
  }
  track(params: TrackParams): string {
    return this.#enqueue("track", params);
  }
  page(params: PageParams): string {
    return this.#enqueue("page", params);
  }
  screen(params: ScreenParams): string {
    return this.#enqueue("screen", params);
  }
  group(params: GroupParams): string {
    return this.#enqueue("group", params);
  }
  alias(params: AliasParams): string {
    return this.#enqueue("alias", params);
  }

  /** Messages the client holds that are not yet acknowledged or failed. */
  get pending(): number {
    return this.#held;
  }

  /** Sends everything queued so far; resolves once all of it (and earlier batches) is acknowledged or has failed. */
  flush(): Promise<FlushResult> {
    this.#cut("flush()");
    const pending = [...this.#unsettled].map((b) => b.done);
    if (pending.length === 0) return Promise.resolve({ sent: 0, failed: 0 });
    // An awaited flush must finish even when nothing else keeps the event loop alive.
    const hold = setInterval(() => {}, 1 << 30);
    return Promise.all(pending).then((results) => {
      clearInterval(hold);
      return results.reduce((a, r) => ({ sent: a.sent + r.sent, failed: a.failed + r.failed }), { sent: 0, failed: 0 });
    });
  }

  /** Refuses new calls, flushes everything, stops the timer and closes idle connections. Idempotent. */
  close(): Promise<FlushResult> {
    this.#closing ??= this.flush().then((result) => {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#transport.destroy();
      this.#log?.(`closed: ${result.sent} sent, ${result.failed} failed in the final flush`);
      return result;
    });
    return this.#closing;
  }

  #enqueue(type: MessageType, params: unknown): string {
    if (this.#closing) throw new AnalyticsError("closed", `${type}: the client is closed`);
    if (this.#held >= this.#o.maxQueueSize) {
      throw new AnalyticsError(
        "queue_full",
        `${type}: queue is full (${this.#held} messages not yet acknowledged, maxQueueSize ${this.#o.maxQueueSize}); the Tracking API is down or slower than the calls — await flush() or raise maxQueueSize`,
      );
    }
    const message = buildMessage(type, params, STAMP);
    this.#queue.push(message);
    this.#held++;
    this.#log?.(`queued ${type} ${message.messageId} (${message.bytes} bytes)`);
    if (this.#queue.length >= this.#o.flushAt) this.#cut(`${this.#o.flushAt} queued`);
    else if (!this.#timer) this.#armTimer();
    return message.messageId;
  }

  #armTimer(): void {
    const delay = Math.max(0, this.#lastFlushAt + this.#o.flushAfter - Date.now());
    this.#timer = setTimeout(this.#onTimer, delay).unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    if (this.#queue.length === 0) return;
    // A count-triggered flush since arming moved the deadline; wait for the new one.
    if (Date.now() - this.#lastFlushAt >= this.#o.flushAfter) this.#cut(`${this.#o.flushAfter} ms since the last flush`);
    else this.#armTimer();
  };

  #cut(reason: string): void {
    this.#lastFlushAt = Date.now();
    if (this.#queue.length === 0) return;
    const messages = this.#queue;
    this.#queue = [];
    for (const group of splitIntoBatches(messages, this.#o.flushAt)) {
      let settle!: (r: FlushResult) => void;
      const done = new Promise<FlushResult>((resolve) => (settle = resolve));
      const batch: Batch = { id: this.#nextBatchId++, messages: group, done, settle };
      this.#unsettled.add(batch);
      this.#waiting.push(batch);
      this.#log?.(`flushing batch #${batch.id}: ${group.length} messages (${reason})`);
    }
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < this.#o.maxInFlight && this.#waiting.length > 0) {
      this.#inFlight++;
      void this.#send(this.#waiting.shift()!);
    }
  }

  async #send(batch: Batch): Promise<void> {
    const outcome = await sendBatch(batch.messages, {
      transport: this.#transport,
      maxRetries: this.#o.maxRetries,
      backoff: { baseMs: this.#o.retryBaseDelay, maxMs: this.#o.retryMaxDelay },
      sleep: unrefSleep,
      log: this.#log,
      label: `batch #${batch.id}`,
    });
    this.#inFlight--;
    this.#held -= batch.messages.length;
    this.#unsettled.delete(batch);
    this.#pump();
    this.#report(batch, outcome);
    batch.settle({ sent: outcome.accepted.length, failed: outcome.failure?.messages.length ?? 0 });
  }

  #report(batch: Batch, outcome: BatchOutcome): void {
    const { accepted, failure } = outcome;
    if (accepted.length > 0)
      this.#log?.(
        `sent batch #${batch.id}: ${accepted.length} messages, ${outcome.bytes} bytes, HTTP ${outcome.status}, attempt ${outcome.attempts}`,
      );
    if (accepted.length > 0 && this.listenerCount("success") > 0) {
      this.#emitSafely("success", {
        messageIds: accepted.map((m) => m.messageId),
        status: outcome.status!,
        attempts: outcome.attempts,
        bytes: outcome.bytes,
        get messages() {
          return parsed(accepted);
        },
      });
    }
    if (!failure) return;
    const error = new Error(this.#redact(failure.error.message));
    this.#log?.(`failed batch #${batch.id}: ${failure.messages.length} messages lost (${failure.code}): ${error.message}`);
    if (this.listenerCount("failure") === 0) {
      process.emitWarning(`${failure.messages.length} messages lost (${failure.code}): ${error.message}`, { code: "ANALYTICS_FAILURE" });
      return;
    }
    this.#emitSafely("failure", {
      code: failure.code,
      error,
      messageIds: failure.messages.map((m) => m.messageId),
      status: outcome.status,
      attempts: outcome.attempts,
      rejections: failure.rejections,
      get messages() {
        return parsed(failure.messages);
      },
    });
  }

  /** A throwing listener must not stall the batch's bookkeeping; its error surfaces as uncaught instead. */
  #emitSafely<K extends keyof Events>(event: K, ...args: Events[K]): void {
    try {
      (this.emit as (e: K, ...a: Events[K]) => boolean)(event, ...args);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
