/**
 * The call types a client sends to the Tracking API, which a destination filter chooses from; apart
 * from the contract's schemas, so a page that only describes a filter ships no zod (decision 0175).
 */
export const FILTER_TYPES = ["track", "identify", "page", "screen", "group", "alias"] as const;
