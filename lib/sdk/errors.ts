/**
 * Errors thrown synchronously at the call site. A code lets callers branch without parsing messages;
 * the library has its own class rather than the app's AppError because users import it standalone.
 */
export type AnalyticsErrorCode = "invalid_message" | "message_too_large" | "queue_full" | "closed" | "invalid_options";

export class AnalyticsError extends Error {
  constructor(
    readonly code: AnalyticsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AnalyticsError";
  }
}
