import "server-only";

/**
 * The edge's penalty box for bodies over their limit (docs/edge.md#oversized-bodies): after a body
 * over its route's limit — read past it, or declared past it — the client's address is boxed for
 * `ms` after its last such body. A boxed client's next request carrying a chunked body, or declaring
 * one over its limit, is held unread for a moment and then refused (server.ts): the flood of one
 * address costs the edge a header and a timer per request instead of a limit's worth of reading,
 * and a client that sends them one after another sends one a moment
 * (docs/decisions/0051-edge-under-abuse.md, 2026-12-07 evening). Requests with a declared length
 * within the limit pass as always: Segment's libraries and browsers declare theirs.
 *
 * At most `maxAddresses` are remembered, the oldest forgotten first: a flood of fresh addresses
 * costs memory in proportion to this cap, and only loses the box for the earliest.
 */
export class PenaltyBox {
  private readonly until = new Map<string, number>();

  constructor(
    readonly ms: number,
    private readonly maxAddresses = 10_000,
  ) {}

  /** True when no address is remembered (expired ones may still be, until they are checked). */
  get empty(): boolean {
    return this.until.size === 0;
  }

  /** The address sent a body over its limit. */
  strike(address: string, now = Date.now()): void {
    if (this.ms <= 0) return;
    this.until.delete(address); // re-inserted last: the Map's order is the order of last strikes
    this.until.set(address, now + this.ms);
    if (this.until.size > this.maxAddresses) this.until.delete(this.until.keys().next().value as string);
  }

  /** True while the address is boxed. */
  boxed(address: string, now = Date.now()): boolean {
    const until = this.until.get(address);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(address);
    return false;
  }

  /** Seconds the address stays boxed, for Retry-After (at least 1). */
  secondsLeft(address: string, now = Date.now()): number {
    return Math.max(1, Math.ceil(((this.until.get(address) ?? now) - now) / 1000));
  }
}
