import { describe, expect, it } from "vitest";
import { RECEIVE_ALL, type DestinationDto } from "@/lib/destinations/contract";
import { emptyForm, formFromDestination, formToInput, validateForm } from "./form-state";

const stored: DestinationDto = {
  id: "d",
  name: "Users API",
  urls: ["https://api.example.com/users/{{userId}}"],
  headers: [],
  sharedSecret: { set: false, last4: null },
  standardWebhooks: false,
  standardSecret: { set: false, last4: null },
  previousSharedSecret: null,
  previousStandardSecret: null,
  enabled: true,
  mode: "any",
  retryWindowMinutes: 240,
  filter: RECEIVE_ALL,
  method: "PUT",
  mapping: { email: { "@path": "$.traits.email" } },
  numbers: "exact",
  ordering: "none",
  maxHoldMinutes: 60,
  pausedAt: null,
  batch: null,
  rateLimit: { perSecond: null, concurrency: null },
  auth: null,
  tls: null,
  sourceIds: [],
  createdAt: "",
  updatedAt: "",
};

describe("the form's request shape (docs/request-shape.md)", () => {
  it("round-trips method, mapping and number form; an empty mapping field sends null (the default body)", () => {
    expect(formToInput(formFromDestination(stored))).toMatchObject({ method: "PUT", mapping: stored.mapping, numbers: "exact" });
    expect(formToInput(emptyForm())).toMatchObject({ method: "POST", mapping: null, numbers: "canonical" });
  });

  it("says why the mapping is refused: JSON that does not parse, or the directive at fault", () => {
    const f = { ...emptyForm(), name: "x", urls: ["https://a.example/hook"], mappingText: '{"email": {"@path": ' };
    expect(validateForm(f).errors.mapping?.[0]).toMatch(/^Not valid JSON: /);
    const g = { ...f, mappingText: '{"email": {"@path": 42}}' };
    expect(validateForm(g).errors).toEqual({ "mapping.email.@path": ["Should be a string or a mapping directive, not a number"] });
    expect(validateForm({ ...f, mappingText: '{"@path": "$."}' })).toEqual({ valid: true, errors: {} });
  });
});

describe("the form's Batching section (docs/request-shape.md#batching)", () => {
  it("is off by default and sends no batch; on, it sends the numbers typed, refused at their fields when out of range", () => {
    expect(formToInput(emptyForm()).batch).toBeNull();
    const on = { ...emptyForm(), name: "B", urls: ["https://a.example/hook"], batchOn: true, batchSize: "50", batchMaxWaitMs: "1500" };
    expect(formToInput(on).batch).toEqual({ size: 50, maxWaitMs: 1500 });
    expect(validateForm(on).valid).toBe(true);
    const bad = validateForm({ ...on, batchSize: "", batchMaxWaitMs: "50" });
    expect(bad.errors["batch.size"]).toBeDefined();
    expect(bad.errors["batch.maxWaitMs"]).toEqual(["At least 100 ms"]);
    expect(formFromDestination({ ...stored, urls: ["https://a.example/hook"], batch: { size: 7, maxWaitMs: 300 } })).toMatchObject({
      batchOn: true,
      batchSize: "7",
      batchMaxWaitMs: "300",
    });
  });
});
