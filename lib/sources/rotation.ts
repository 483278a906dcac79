/** A write key's rotation grace, apart from the contract's schemas so the source page ships no zod (decision 0175). */

/**
 * Rotating a write key (docs/tracking-api.md#write-key-rotation): the old key keeps working for the
 * grace period, so clients can move to the new one without a failed call. 0: it stops at once.
 */
export const ROTATION_GRACE_CHOICES = [0, 60, 1440, 10080] as const;
export const MAX_ROTATION_GRACE_MINUTES = 10080;
