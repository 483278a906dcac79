"use client";

import { Field, Input } from "@/components/ui/field";
import { BATCH_BODY_LIMIT, BATCH_SIZE, BATCH_WAIT_MS } from "@/lib/webhooks/batching";
import { BATCH_DEFAULTS, type FormState } from "./form-state";

type Errors = Record<string, string[] | undefined>;

/**
 * Opt-in batching (docs/request-shape.md#batching): off by default, so a user can ignore it; on, the
 * batch size and the longest wait. Plain native controls: keyboard and narrow screens work as they do.
 */
export function BatchFields({ form, errors, onChange }: { form: FormState; errors: Errors; onChange: (p: Partial<FormState>) => void }) {
  const wait = Number(form.batchMaxWaitMs);
  return (
    <>
      <label className="flex items-start gap-2">
        <input
          type="checkbox"
          className="mt-0.5"
          checked={form.batchOn}
          aria-describedby="dest-batch-hint"
          onChange={(e) =>
            onChange({
              batchOn: e.target.checked,
              ...(e.target.checked && form.batchSize.trim() === "" ? { batchSize: BATCH_DEFAULTS.size } : {}),
              ...(e.target.checked && form.batchMaxWaitMs.trim() === "" ? { batchMaxWaitMs: BATCH_DEFAULTS.maxWaitMs } : {}),
            })
          }
        />
        <span className="text-sm text-slate-700">Send events in batches</span>
      </label>
      <p id="dest-batch-hint" className="text-xs text-slate-500">
        Each request's body is a JSON array of events, signed whole (X-Signature and Standard Webhooks cover every event). A batch goes when
        it is full, when its first event has waited long enough, or before its body would pass {Math.round(BATCH_BODY_LIMIT / 1024)} KB.
        Off, each event is its own request.
      </p>
      {/* batch as a whole: beside URL templates */}
      {errors.batch?.[0] ? (
        <p role="alert" className="text-xs text-red-600">
          {errors.batch[0]}
        </p>
      ) : null}
      {form.batchOn ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Events per batch"
            htmlFor="dest-batch-size"
            error={errors["batch.size"]?.[0]}
            hint={`${BATCH_SIZE.min}–${BATCH_SIZE.max}`}
          >
            <Input
              id="dest-batch-size"
              inputMode="numeric"
              className="max-w-40"
              value={form.batchSize}
              onChange={(e) => onChange({ batchSize: e.target.value })}
            />
          </Field>
          <Field
            label="Longest wait (ms)"
            htmlFor="dest-batch-wait"
            error={errors["batch.maxWaitMs"]?.[0]}
            hint={
              Number.isFinite(wait) && wait > 0
                ? `A batch goes at most ${wait >= 1000 ? `${wait / 1000} s` : `${wait} ms`} after its first event (${BATCH_WAIT_MS.min}–${BATCH_WAIT_MS.max} ms).`
                : `${BATCH_WAIT_MS.min}–${BATCH_WAIT_MS.max} ms`
            }
          >
            <Input
              id="dest-batch-wait"
              inputMode="numeric"
              className="max-w-40"
              value={form.batchMaxWaitMs}
              onChange={(e) => onChange({ batchMaxWaitMs: e.target.value })}
            />
          </Field>
        </div>
      ) : null}
    </>
  );
}
