// The legacy analytics-node 6.x ships no types; the part the tests use.
declare module "analytics-node" {
  type Callback = (err?: Error) => void;
  type Message = Record<string, unknown>;
  export default class Analytics {
    constructor(
      writeKey: string,
      options?: {
        host?: string;
        path?: string;
        flushAt?: number;
        flushInterval?: number;
        retryCount?: number;
        enable?: boolean;
        errorHandler?: (err: Error) => void;
      },
    );
    identify(message: Message, callback?: Callback): this;
    track(message: Message, callback?: Callback): this;
    page(message: Message, callback?: Callback): this;
    screen(message: Message, callback?: Callback): this;
    group(message: Message, callback?: Callback): this;
    alias(message: Message, callback?: Callback): this;
    flush(callback?: Callback): Promise<unknown>;
  }
}
