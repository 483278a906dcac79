import { describe, expect, it } from "vitest";
import { destinationInputSchema } from "@/lib/destinations/schemas";
import { fieldErrorsFromIssues } from "@/lib/errors";
import { describeMinutes, emptyForm, formToInput, generateSharedSecret, generateStandardSecret } from "./form-state";

const errorsOf = (f: ReturnType<typeof emptyForm>) => {
  const r = destinationInputSchema.safeParse(formToInput(f));
  return r.success ? {} : fieldErrorsFromIssues(r.error.issues);
};

describe("destination form state", () => {
  it("reports errors keyed by the row they belong to", () => {
    const f = { ...emptyForm(), urls: ["https://a.example/hook", "not a url"], headers: [{ name: "X Bad", value: "1" }], retryWindowMinutes: "" };
    const e = errorsOf(f);
    expect(Object.keys(e).sort()).toEqual(["headers.0.name", "name", "retryWindowMinutes", "urls.1"]);
  });

  it("turns a filled form into valid input, blank secrets into none", () => {
    const f = { ...emptyForm(), name: "Orders", urls: ["https://a.example/hook", "https://b.example/hook"], headers: [{ name: "X-Api-Key", value: "k" }] };
    const r = destinationInputSchema.parse(formToInput(f));
    expect(r).toMatchObject({ name: "Orders", sharedSecret: null, standardSecret: null, retryWindowMinutes: 240, mode: "any" });
  });

  it("generates secrets the schema accepts", () => {
    expect(generateSharedSecret()).toMatch(/^[0-9a-f]{48}$/);
    const f = { ...emptyForm(), name: "x", urls: ["https://a.example"], sharedSecret: generateSharedSecret(), standardWebhooks: true, standardSecret: generateStandardSecret() };
    expect(errorsOf(f)).toEqual({});
  });

  it("does not send a Standard Webhooks secret when the option is off", () => {
    expect(formToInput({ ...emptyForm(), standardSecret: "whsec_x" }).standardSecret).toBe("");
  });

  it("describes retry windows in words", () => {
    expect(describeMinutes("240")).toBe("4 hours");
    expect(describeMinutes("1")).toBe("1 minute");
    expect(describeMinutes("1830")).toBe("1 day 6 hours 30 minutes");
    expect(describeMinutes("x")).toBeNull();
  });
});
