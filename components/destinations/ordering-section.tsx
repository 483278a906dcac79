"use client";

import { MAX_HOLD_MINUTES_DEFAULT, type DestinationDto, type Ordering } from "@/lib/destinations/contract";
import { Field, Input } from "@/components/ui/field";

/**
 * The destination form's "Ordering" fields (docs/webhooks.md#ordering): per-user order on or off, and
 * the hold limit (docs/webhooks.md#hold-limit), typed as text; the shared schema judges the number.
 */
export type OrderingState = { ordering: Ordering; maxHoldMinutes: string };

export const noOrdering = (): OrderingState => ({ ordering: "none", maxHoldMinutes: String(MAX_HOLD_MINUTES_DEFAULT) });

export const orderingFromDestination = (d: Pick<DestinationDto, "ordering" | "maxHoldMinutes">): OrderingState => ({
  ordering: d.ordering,
  maxHoldMinutes: String(d.maxHoldMinutes),
});

/** The API's ordering and maxHoldMinutes; a blank limit is NaN, refused by the schema at its field. */
export function orderingToInput(s: OrderingState) {
  return { ordering: s.ordering, maxHoldMinutes: s.maxHoldMinutes.trim() === "" ? Number.NaN : Number(s.maxHoldMinutes) };
}

export function OrderingFields({
  value,
  errors,
  onChange,
}: {
  value: OrderingState;
  errors: Record<string, string[] | undefined>;
  onChange: (next: OrderingState) => void;
}) {
  const on = value.ordering === "perUser";
  return (
    <div className="space-y-4">
      <div className="flex items-start gap-2">
        <input
          id="dest-ordering"
          type="checkbox"
          className="mt-1"
          checked={on}
          aria-describedby="dest-ordering-hint"
          onChange={(e) => onChange({ ...value, ordering: e.target.checked ? "perUser" : "none" })}
        />
        <div>
          <label htmlFor="dest-ordering" className="text-sm text-slate-700">
            Keep each user&apos;s messages in order
          </label>
          <p id="dest-ordering-hint" className="text-xs text-slate-500">
            A user&apos;s message (by userId, else anonymousId) waits while an earlier one of theirs is still being retried here. Other
            users are not held up. Replays and backfills go at once, outside this order.
          </p>
        </div>
      </div>
      {on ? (
        <Field
          label="Hold a message at most (minutes)"
          htmlFor="dest-max-hold"
          error={errors.maxHoldMinutes?.[0]}
          hint={`Past it, the waiting messages are sent anyway and the request log says so. Default ${MAX_HOLD_MINUTES_DEFAULT}.`}
        >
          <Input
            id="dest-max-hold"
            inputMode="numeric"
            autoComplete="off"
            className="max-w-40"
            value={value.maxHoldMinutes}
            onChange={(e) => onChange({ ...value, maxHoldMinutes: e.target.value })}
          />
        </Field>
      ) : null}
    </div>
  );
}
