import { describe, expect, it } from "vitest";
import { destinationInputSchema, destinationPatchSchema, RECEIVE_ALL, type DestinationDto } from "@/lib/destinations/contract";
import { fieldErrorsFromIssues } from "@/lib/api/field-errors";
import {
  emptyForm,
  formFromDestination,
  formToInput,
  generateSharedSecret,
  generateStandardSecret,
  type FormState,
  validateForm,
} from "./form-state";
import { describeFilter, describeMinutes } from "./describe-shape";
import { describeStored } from "./write-only-field";

const errorsOf = (f: FormState) => {
  const r = destinationInputSchema.safeParse(formToInput(f));
  return r.success ? {} : fieldErrorsFromIssues(r.error.issues);
};
const typed = (value: string) => ({ action: "replace" as const, value, stored: null });

const stored: DestinationDto = {
  id: "d",
  name: "Orders",
  urls: ["https://a.example/hook"],
  headers: [{ name: "X-Api-Key", value: { set: true, last4: "cdef" } }],
  sharedSecret: { set: true, last4: "abcd" },
  standardWebhooks: true,
  standardSecret: { set: true, last4: "xyz=" },
  previousSharedSecret: null,
  previousStandardSecret: null,
  enabled: true,
  mode: "any",
  retryWindowMinutes: 240,
  filter: { ...RECEIVE_ALL, types: ["track", "identify"], events: { mode: "exclude", names: ["Heartbeat", "Ping"] } },
  pausedAt: null,
  rateLimit: { perSecond: null, concurrency: null },
  auth: null,
  tls: null,
  method: "POST",
  mapping: null,
  numbers: "canonical",
  ordering: "none",
  maxHoldMinutes: 60,
  sourceIds: [],
  batch: null,
  createdAt: "",
  updatedAt: "",
};

describe("describeFilter", () => {
  it("says what a destination receives as people say it", () => {
    expect(describeFilter(RECEIVE_ALL)).toBe("All calls");
    expect(describeFilter({ ...RECEIVE_ALL, types: ["track"], events: { mode: "include", names: ["Order Completed"] } })).toBe(
      "track calls; track events only Order Completed",
    );
    expect(describeFilter(stored.filter)).toBe("track and identify calls; track events except Heartbeat, Ping");
    expect(describeFilter({ ...RECEIVE_ALL, events: { mode: "exclude", names: ["Ping"] } })).toBe(
      "All call types; track events except Ping",
    );
  });
  it("round-trips the stored filter through the form, and sends null for receive-all", () => {
    expect(formToInput(formFromDestination(stored)).filter).toEqual(stored.filter);
    expect(formToInput(emptyForm()).filter).toBeNull();
    const f = emptyForm();
    f.filter = { ...f.filter, types: ["track"], eventMode: "include", eventNames: " Order Completed \n\nSigned Up\n" };
    expect(formToInput(f).filter).toEqual({
      types: ["track"],
      events: { mode: "include", names: ["Order Completed", "Signed Up"] },
      where: null,
      samplePercent: 100,
      drop: [],
      allow: [],
    });
  });
  it("keeps conditions, sampling and field lists through the form, and reports JSON that does not parse", () => {
    const withAll = {
      ...stored,
      filter: {
        ...RECEIVE_ALL,
        where: { field: "properties.order.total", op: "gt" as const, value: 100 },
        samplePercent: 25,
        drop: ["context.ip", "traits.email"],
        allow: ["properties.total"],
      },
    };
    expect(formToInput(formFromDestination(withAll)).filter).toEqual(withAll.filter);
    const f = formFromDestination(withAll);
    f.filter.where = '{"field": "properties.a", "op":';
    expect(validateForm(f, { editing: true }).errors["filter.where"]?.[0]).toMatch(/^Not valid JSON/);
    f.filter.where = '{"field": "body.a", "op": "exists"}';
    expect(validateForm(f, { editing: true }).errors["filter.where.field"]?.[0]).toContain("A path starts at one of");
    f.filter.where = "";
    f.filter.samplePercent = "0";
    expect(validateForm(f, { editing: true }).errors["filter.samplePercent"]?.[0]).toContain("At least 0.01");
  });
});

describe("destination form state", () => {
  it("reports errors keyed by the row they belong to", () => {
    const f = {
      ...emptyForm(),
      urls: ["https://a.example/hook", "not a url"],
      headers: [{ name: "X Bad", ...typed("1") }],
      retryWindowMinutes: "",
    };
    expect(Object.keys(errorsOf(f)).sort()).toEqual(["headers.0.name", "name", "retryWindowMinutes", "urls.1"]);
  });

  it.each(["abc", "1.5", ""])("shows a duplicate header and a bad retry window (%j) together, not one at a time", (retry) => {
    const f = {
      ...emptyForm(),
      name: "Orders",
      urls: ["https://a.example/hook", "https://a.example/hook"],
      headers: [
        { name: "X-Api-Key", ...typed("1") },
        { name: "x-api-key", ...typed("2") },
      ],
      retryWindowMinutes: retry,
    };
    const { valid, errors } = validateForm(f);
    expect(valid).toBe(false);
    expect(Object.keys(errors).sort()).toEqual(["headers.1.name", "retryWindowMinutes", "urls.1"]);
    expect(errors["headers.1.name"]).toEqual(["This header is already listed"]);
  });

  it("merges a duplicate with another error on the same field once", () => {
    const f = { ...emptyForm(), name: "x", urls: ["not a url", "not a url"], retryWindowMinutes: "abc" };
    expect(validateForm(f).errors["urls.1"]).toEqual(["Enter a full URL starting with http:// or https://", "This URL is already listed"]);
  });

  it("gives the parsed input when the form is valid", () => {
    const f = { ...emptyForm(), name: "Orders", urls: ["https://a.example/hook"] };
    expect(validateForm(f)).toEqual({ valid: true, errors: {} });
  });

  it("turns a filled form into valid input, blank secrets into none", () => {
    const f = {
      ...emptyForm(),
      name: "Orders",
      urls: ["https://a.example/hook", "https://b.example/hook"],
      headers: [{ name: "X-Api-Key", ...typed("k") }],
    };
    const r = destinationInputSchema.parse(formToInput(f));
    expect(r).toMatchObject({ name: "Orders", sharedSecret: null, standardSecret: null, retryWindowMinutes: 240, mode: "any" });
  });

  it("leaves stored secrets and header values out of a PATCH unless replaced or removed", () => {
    const f = formFromDestination(stored);
    expect(f.sharedSecret).toEqual({ action: "keep", value: "", stored: { set: true, last4: "abcd" } });
    const kept = destinationPatchSchema.parse(formToInput(f));
    // Left out on the wire (JSON drops undefined): the server keeps what it has.
    expect(Object.keys(JSON.parse(JSON.stringify(kept)))).not.toContain("sharedSecret");
    expect(Object.keys(JSON.parse(JSON.stringify(kept)))).not.toContain("standardSecret");
    expect(kept.headers).toEqual([{ name: "X-Api-Key" }]);

    const changed = destinationPatchSchema.parse(
      formToInput({
        ...f,
        sharedSecret: { ...f.sharedSecret, action: "remove" },
        standardSecret: { ...f.standardSecret, action: "replace", value: generateStandardSecret() },
        headers: [{ ...f.headers[0], action: "replace", value: "new-key" }],
      }),
    );
    expect(changed.sharedSecret).toBeNull();
    expect(changed.standardSecret).toMatch(/^whsec_/);
    expect(changed.headers).toEqual([{ name: "X-Api-Key", value: "new-key" }]);
  });

  it("generates secrets the schema accepts", () => {
    expect(generateSharedSecret()).toMatch(/^[0-9a-f]{48}$/);
    const f = {
      ...emptyForm(),
      name: "x",
      urls: ["https://a.example"],
      sharedSecret: typed(generateSharedSecret()),
      standardWebhooks: true,
      standardSecret: typed(generateStandardSecret()),
    };
    expect(errorsOf(f)).toEqual({});
  });

  it("does not send a typed Standard Webhooks secret when the option is off", () => {
    expect(formToInput({ ...emptyForm(), standardSecret: typed("whsec_x") }).standardSecret).toBe("");
  });

  it("describes a stored value without showing it", () => {
    expect(describeStored({ set: true, last4: "abcd" })).toBe("set · ••••abcd");
    expect(describeStored({ set: true, last4: null })).toBe("set");
  });

  it("describes retry windows in words", () => {
    expect(describeMinutes("240")).toBe("4 hours");
    expect(describeMinutes("1")).toBe("1 minute");
    expect(describeMinutes("1830")).toBe("1 day 6 hours 30 minutes");
    expect(describeMinutes("x")).toBeNull();
  });
});

describe("authentication in the form (docs/endpoint-auth.md#oauth2)", () => {
  const auth: NonNullable<DestinationDto["auth"]> = {
    type: "oauth2",
    tokenUrl: "https://auth.example.com/token",
    clientId: "eventrail",
    clientSecret: { set: true, last4: "9xyz" },
    previousClientSecret: null,
    scope: "events:write",
    audience: null,
    method: "client_secret_post",
  };

  it("sends null while off, and the setting without the kept secret while on, so the server keeps it", () => {
    expect(formToInput(emptyForm()).auth).toBeNull();
    const f = formFromDestination({ ...stored, auth });
    expect(f.auth.clientSecret).toMatchObject({ action: "keep" });
    const input = destinationPatchSchema.parse(formToInput(f));
    expect(input.auth).toEqual({ ...auth, previousClientSecret: undefined, clientSecret: undefined, audience: null });
    expect(validateForm(f, { editing: true }).valid).toBe(true);
  });

  it("asks for the client secret of a new setting, at its field", () => {
    const f: FormState = { ...emptyForm(), name: "Hooks", urls: ["https://a.example/hook"] };
    f.auth = { ...f.auth, on: true, tokenUrl: "https://auth.example.com/token", clientId: "eventrail" };
    expect(validateForm(f).errors["auth.clientSecret"]).toEqual(["Enter the client secret"]);
    f.auth = { ...f.auth, clientSecret: typed("s3cret") };
    expect(validateForm(f).valid).toBe(true);
    expect(formToInput(f).auth).toMatchObject({ clientSecret: "s3cret", method: "client_secret_basic" });
  });
});

describe("client certificate in the form (docs/endpoint-auth.md#mutual-tls)", () => {
  const cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const tls: NonNullable<DestinationDto["tls"]> = {
    clientCert: cert,
    subject: "CN=eventrail-client",
    expiresAt: "2027-01-31T00:00:00.000Z",
    clientKey: { set: true, last4: null },
    ca: null,
    caSubject: null,
    previous: null,
  };

  it("sends null while off, and the setting without the kept key while on", () => {
    expect(formToInput(emptyForm()).tls).toBeNull();
    const f = formFromDestination({ ...stored, tls });
    expect(destinationPatchSchema.parse(formToInput(f)).tls).toEqual({ clientCert: cert, clientKey: undefined, ca: null });
    expect(validateForm(f, { editing: true }).valid).toBe(true);
  });

  it("asks for the key of a new setting and for PEM, at their fields", () => {
    const f: FormState = { ...emptyForm(), name: "Hooks", urls: ["https://a.example/hook"] };
    f.tls = { ...f.tls, on: true, clientCert: "not pem" };
    const { errors } = validateForm(f);
    expect(errors["tls.clientKey"]).toEqual(["Paste the client key"]);
    expect(errors["tls.clientCert"]?.[0]).toMatch(/PEM/);
  });
});
