"use client";

import { RATE_LIMIT_MAX, type DestinationDto } from "@/lib/destinations/contract";
import { Field, Input } from "@/components/ui/field";

/**
 * The destination form's "Rate limit" fields (docs/webhooks.md#rate-limits): deliveries per second
 * and at once, each blank for no limit. Typed as text; the shared schema judges the numbers.
 */
export type RateLimitState = { perSecond: string; concurrency: string };

export const noRateLimit = (): RateLimitState => ({ perSecond: "", concurrency: "" });

export const rateLimitFromDestination = (d: Pick<DestinationDto, "rateLimit">): RateLimitState => ({
  perSecond: d.rateLimit.perSecond === null ? "" : String(d.rateLimit.perSecond),
  concurrency: d.rateLimit.concurrency === null ? "" : String(d.rateLimit.concurrency),
});

/** Blank is no limit (null); anything else goes as a number (NaN for text, refused by the schema with its field). */
const limitOf = (raw: string) => (raw.trim() === "" ? null : Number(raw));

/** The API's rateLimit: null when neither is set. */
export function rateLimitToInput(s: RateLimitState) {
  const perSecond = limitOf(s.perSecond);
  const concurrency = limitOf(s.concurrency);
  return perSecond === null && concurrency === null ? null : { perSecond, concurrency };
}

export function RateLimitFields({
  value,
  errors,
  onChange,
}: {
  value: RateLimitState;
  errors: Record<string, string[] | undefined>;
  onChange: (next: RateLimitState) => void;
}) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <Field
        label="Deliveries per second"
        htmlFor="dest-rate-per-second"
        error={errors["rateLimit.perSecond"]?.[0]}
        hint={`Blank: no limit. At most ${RATE_LIMIT_MAX.perSecond.toLocaleString("en")}.`}
      >
        <Input
          id="dest-rate-per-second"
          inputMode="numeric"
          autoComplete="off"
          placeholder="No limit"
          className="max-w-40"
          value={value.perSecond}
          onChange={(e) => onChange({ ...value, perSecond: e.target.value })}
        />
      </Field>
      <Field
        label="Deliveries at once"
        htmlFor="dest-rate-concurrency"
        error={errors["rateLimit.concurrency"]?.[0]}
        hint={`Blank: no limit. At most ${RATE_LIMIT_MAX.concurrency.toLocaleString("en")}.`}
      >
        <Input
          id="dest-rate-concurrency"
          inputMode="numeric"
          autoComplete="off"
          placeholder="No limit"
          className="max-w-40"
          value={value.concurrency}
          onChange={(e) => onChange({ ...value, concurrency: e.target.value })}
        />
      </Field>
    </div>
  );
}
