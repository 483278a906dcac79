import { describe, expect, it } from "vitest";
import type { DestinationDto } from "@/lib/destinations/contract";
import { emptyForm, formFromDestination, formToInput, validateForm } from "./form-state";

const base = () => ({ ...emptyForm(), name: "Hooks", urls: ["https://a.example/hook"] });

describe("the ordering fields (docs/webhooks.md#ordering)", () => {
  it("are off by default with the 60-minute hold limit, and send per-user ordering with the limit typed", () => {
    expect(formToInput(base())).toMatchObject({ ordering: "none", maxHoldMinutes: 60 });
    const on = { ...base(), ordering: { ordering: "perUser" as const, maxHoldMinutes: "15" } };
    expect(formToInput(on)).toMatchObject({ ordering: "perUser", maxHoldMinutes: 15 });
    expect(validateForm(on).valid).toBe(true);
  });

  it("name the hold limit's field and the reason when it is refused", () => {
    const blank = { ...base(), ordering: { ordering: "perUser" as const, maxHoldMinutes: "" } };
    expect(validateForm(blank).errors.maxHoldMinutes).toEqual([expect.stringContaining("Enter a number")]);
    const long = { ...base(), ordering: { ordering: "perUser" as const, maxHoldMinutes: "20000" } };
    expect(validateForm(long).errors.maxHoldMinutes).toEqual(["At most 10080 minutes (7 days)"]);
  });

  it("show a stored destination's setting as saved", () => {
    const stored = { ordering: "perUser", maxHoldMinutes: 5 } as Pick<DestinationDto, "ordering" | "maxHoldMinutes">;
    const form = formFromDestination({ ...(formStub() as DestinationDto), ...stored });
    expect(form.ordering).toEqual({ ordering: "perUser", maxHoldMinutes: "5" });
  });
});

/** The rest of a DTO, as the API answers for a destination with nothing else set. */
function formStub(): Omit<DestinationDto, "ordering" | "maxHoldMinutes"> {
  const none = { set: false, last4: null };
  return {
    id: "d",
    name: "Hooks",
    urls: ["https://a.example/hook"],
    headers: [],
    sharedSecret: none,
    standardWebhooks: false,
    standardSecret: none,
    previousSharedSecret: null,
    previousStandardSecret: null,
    enabled: true,
    mode: "any",
    retryWindowMinutes: 240,
    filter: { types: ["track"], events: { mode: "all", names: [] }, where: null, samplePercent: 100, drop: [], allow: [] },
    method: "POST",
    mapping: null,
    numbers: "canonical",
    batch: null,
    pausedAt: null,
    rateLimit: { perSecond: null, concurrency: null },
    auth: null,
    tls: null,
    sourceIds: [],
    createdAt: "2026-12-06T00:00:00.000Z",
    updatedAt: "2026-12-06T00:00:00.000Z",
  };
}
