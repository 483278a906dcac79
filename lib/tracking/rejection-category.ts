import "server-only";
/**
 * The reason category of a rejected message (docs/tracking-api.md#rejections): a small, fixed set,
 * so it can label a Prometheus series and key the source page's counter, where the reason text
 * itself (which quotes the client's values) cannot. Pure: reads only the reason sentence that
 * normalise.ts wrote; `rejection-category.test.ts` runs every rejection normalise.ts can make
 * through it, so a reworded reason fails a test instead of falling into `other`.
 */
export const REJECTION_CATEGORIES = [
  "too_large",
  "too_deep",
  "missing_id",
  "missing_field",
  "invalid_type",
  "invalid_message_id",
  "invalid_timestamp",
  "invalid_field",
  "invalid_text",
  "not_an_object",
  /** a request refused as a whole (bad JSON, body over 500 KB…) from a known source */
  "invalid_request",
  "other",
] as const;
export type RejectionCategory = (typeof REJECTION_CATEGORIES)[number];

/** First match wins: more specific sentences come first. */
const RULES: [RegExp, RejectionCategory][] = [
  [/^message must be a JSON object/, "not_an_object"],
  [/^message is [\d,]+ bytes/, "too_large"],
  [/ is longer than \d+ bytes$/, "too_large"],
  [/nested .*levels deep/, "too_deep"],
  [/^userId or anonymousId is required/, "missing_id"],
  [/ requires an? /, "missing_field"],
  [/^type is missing|^unknown type /, "invalid_type"],
  [/^messageId /, "invalid_message_id"],
  [/, which is not a finite number$/, "invalid_field"],
  [/timestamp|sentAt/i, "invalid_timestamp"],
  [/NUL character|surrogate/, "invalid_text"],
  [/ must be (a|an) /, "invalid_field"],
];

export function rejectionCategory(reason: string): RejectionCategory {
  for (const [pattern, category] of RULES) if (pattern.test(reason)) return category;
  return "other";
}
