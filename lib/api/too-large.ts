import "server-only";

/** Sizes as docs/README.md#conventions counts them (1 KB = 1,024 bytes). */
export const formatBytes = (n: number) => (n >= 1024 * 1024 ? `${n / (1024 * 1024)} MB` : n >= 1024 ? `${n / 1024} KB` : `${n} bytes`);

/** The refusal of a body over an endpoint's limit, worded the same by the edge and the web app. */
export const tooLargeMessage = (maxBytes: number) => `Request body is larger than the ${formatBytes(maxBytes)} limit of this endpoint`;
