import "server-only";
import { Client, Dispatcher } from "undici";

/** The handler methods undici calls, in either of its handler styles; the wrapper passes each on. */
const HANDLER_METHODS = [
  "onConnect",
  "onHeaders",
  "onData",
  "onComplete",
  "onError",
  "onUpgrade",
  "onBodySent",
  "onResponseStarted",
  "onRequestStart",
  "onRequestUpgrade",
  "onResponseStart",
  "onResponseData",
  "onResponseEnd",
  "onResponseError",
] as const;
const ENDS = new Set<string>(["onComplete", "onResponseEnd"]);
const FAILURES = new Set<string>(["onError", "onResponseError"]);

type Handler = Dispatcher.DispatchHandler & Record<string, unknown>;

/**
 * The edge's connections to the web app (docs/edge.md#web-slots): one undici Client per request in
 * flight, kept for the next request when its answer ended cleanly, destroyed — its socket with
 * it — when anything went wrong, whatever the error: a failure while forwarding one request never
 * leaves a connection that other requests would wait on (issue 48). The web slots bound how many
 * requests are in flight; `connections` bounds how many idle clients are kept.
 *
 * An undici Pool marks a client busy when a dispatch fails before it is sent (an assertion on a
 * Host it cannot parse, for one) and never picks that client again; this keeps no such state.
 */
export class WebConnections extends Dispatcher {
  private readonly idle: Client[] = [];
  private readonly inUse = new Set<Client>();
  private closed = false;

  constructor(
    private readonly origin: string,
    private readonly o: { connections: number; clientOptions: Client.Options },
  ) {
    super();
  }

  /** Clients kept open between requests, and clients carrying one. */
  get stats() {
    return { idle: this.idle.length, inUse: this.inUse.size };
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.closed) throw new Error("the web app's connections are closed");
    const client = this.idle.pop() ?? new Client(this.origin, this.o.clientOptions);
    this.inUse.add(client);
    let settled = false;
    const settle = (clean: boolean) => {
      if (settled) return;
      settled = true;
      this.inUse.delete(client);
      if (clean && !this.closed && this.idle.length < this.o.connections && !client.destroyed && !client.closed) {
        this.idle.push(client);
      } else {
        // Never inside undici's own callback: it may still be unwinding the request.
        setImmediate(() => void client.destroy().catch(() => {}));
      }
    };
    const source = handler as Handler;
    const watched: Record<string, unknown> = {};
    for (const name of HANDLER_METHODS) {
      const method = source[name];
      if (typeof method !== "function") continue;
      watched[name] = (...args: unknown[]) => {
        if (FAILURES.has(name)) settle(false);
        const result = (method as (...a: unknown[]) => unknown).apply(source, args);
        if (ENDS.has(name)) settle(true);
        return result;
      };
    }
    try {
      return client.dispatch(opts, watched as Dispatcher.DispatchHandler);
    } catch (err) {
      settle(false);
      throw err;
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: undici declares close and destroy as overloads
  override close(): any {
    this.closed = true;
    return Promise.all([...this.idle.splice(0), ...this.inUse].map((c) => c.close())).then(() => {});
  }

  // biome-ignore lint/suspicious/noExplicitAny: undici declares close and destroy as overloads
  override destroy(): any {
    this.closed = true;
    return Promise.all([...this.idle.splice(0), ...this.inUse].map((c) => c.destroy())).then(() => {});
  }
}
