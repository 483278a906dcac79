import { describe, expect, it } from "vitest";
import { emptyForm, formToInput, validateForm } from "./form-state";

const base = () => ({ ...emptyForm(), name: "Hooks", urls: ["https://a.example/hook"] });

describe("the rate limit fields", () => {
  it("send no limit when both are blank, and a limit of either kind alone", () => {
    expect(formToInput(base()).rateLimit).toBeNull();
    expect(formToInput({ ...base(), rateLimit: { perSecond: "20", concurrency: "" } }).rateLimit).toEqual({
      perSecond: 20,
      concurrency: null,
    });
    expect(formToInput({ ...base(), rateLimit: { perSecond: " ", concurrency: "4" } }).rateLimit).toEqual({
      perSecond: null,
      concurrency: 4,
    });
    expect(validateForm({ ...base(), rateLimit: { perSecond: "20", concurrency: "4" } }).valid).toBe(true);
  });

  it("name the field and the reason when a number is refused", () => {
    const errors = validateForm({ ...base(), rateLimit: { perSecond: "0", concurrency: "2.5" } }).errors;
    expect(errors["rateLimit.perSecond"]).toEqual(["At least 1"]);
    expect(errors["rateLimit.concurrency"]).toEqual(["A whole number"]);
    expect(validateForm({ ...base(), rateLimit: { perSecond: "fast", concurrency: "100000" } }).errors).toMatchObject({
      "rateLimit.perSecond": [expect.stringContaining("Enter a number")],
      "rateLimit.concurrency": ["At most 1000"],
    });
  });
});
