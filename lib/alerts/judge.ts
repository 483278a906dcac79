import "server-only";

/**
 * The judgement of one destination URL at one moment (docs/alerts.md#when): pure, with the clock
 * passed in, so tests can stand 16 minutes or 5 days after real failures without waiting for them.
 */

export type AlertThresholds = { failingMinutes: number; successRatePercent: number; disableAfterDays: number };

/** What the request log says about a URL (since its last re-enable, within the evaluation window). */
export type UrlStats = {
  /** The first failed attempt after the URL's last success; null when the newest attempt succeeded (or there is none). */
  failingSince: Date | null;
  /** Attempts and successes among the URL's latest attempts of the last hour. */
  hourAttempts: number;
  hourSuccesses: number;
};

export type OpenAlert = { reason: "failing" | "success_rate"; disabledAt: Date | null };

export type Judgement =
  | { action: "none" }
  | { action: "open"; reason: "failing" | "success_rate"; disable: boolean }
  | { action: "disable" }
  | { action: "resolve" };

/** Fewer attempts than this in the hour say too little for a success rate: the rate alert waits for more. */
export const MIN_ATTEMPTS_FOR_RATE = 10;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const successRateOf = (s: UrlStats): number | null => (s.hourAttempts > 0 ? s.hourSuccesses / s.hourAttempts : null);

export function judgeEndpoint(opts: {
  now: Date;
  stats: UrlStats;
  thresholds: AlertThresholds;
  open: OpenAlert | null;
  /** The URL is among the destination's disabled URLs: nothing changes until a person re-enables it. */
  disabled: boolean;
}): Judgement {
  const { now, stats, thresholds: t, open } = opts;
  if (opts.disabled) return { action: "none" };
  const failingFor = stats.failingSince ? now.getTime() - stats.failingSince.getTime() : 0;
  const failing = stats.failingSince !== null && failingFor >= t.failingMinutes * MINUTE;
  const rate = successRateOf(stats);
  const lowRate = t.successRatePercent > 0 && stats.hourAttempts >= MIN_ATTEMPTS_FOR_RATE && rate! * 100 < t.successRatePercent;
  const disable = stats.failingSince !== null && failingFor >= t.disableAfterDays * DAY;
  if (!open) {
    if (!failing && !lowRate) return { action: "none" };
    return { action: "open", reason: failing ? "failing" : "success_rate", disable };
  }
  if (disable && !open.disabledAt) return { action: "disable" };
  // Recovered: the newest attempt succeeded and the hour's rate is back over the threshold.
  if (stats.failingSince === null && !lowRate) return { action: "resolve" };
  return { action: "none" };
}
