/** Capture URLs' limits, apart from the contract's schemas so pages that only state them ship no zod (decision 0175). */

const MB = 1024 * 1024;

/**
 * Limits stated on the capture page and enforced by the receiver (docs/dashboard.md#capture-urls).
 * A capture URL is a rolling window: when a new request would pass a limit, the oldest requests are
 * dropped (of the bin, or of the whole workspace), and the receiver still answers its configured status.
 */
export const CAPTURE_LIMITS = {
  /** Requests kept per bin; older ones are pruned as new ones arrive. */
  requestsPerBin: 500,
  /** Body bytes stored per request, as received; the rest is counted but dropped (`truncated`). */
  bodyBytes: MB,
  /** Body bytes stored per bin: 128 MB, one hundred and more full-size bodies. */
  binBytes: 128 * MB,
  /** Body bytes stored per workspace, all its bins together. */
  workspaceBytes: 256 * MB,
  /** Bytes of each body a list shows (the whole body is one request away). */
  previewBytes: 512,
  /** Longest configurable response delay (the delivery timeout is 5 s, so this covers timeouts). */
  maxDelayMs: 30_000,
  binsPerWorkspace: 100,
} as const;
