import { describe, expect, it } from "vitest";
import { checkCall, compilePlan, MAX_VIOLATIONS_PER_CALL, schemaProblem, SCHEMA_LIMITS, type PlanRule } from "./compile";

const orderCompleted: PlanRule = {
  type: "track",
  event: "Order Completed",
  schema: {
    type: "object",
    properties: { total: { type: "number" }, currency: { type: "string", enum: ["EUR", "USD"] }, email: { format: "email" } },
    required: ["total"],
  },
};

describe("schemaProblem", () => {
  it("accepts draft 2020-12 and draft-07 schemas", () => {
    expect(
      schemaProblem({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", prefixItems: [{ type: "string" }] }),
    ).toBeNull();
    expect(schemaProblem({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", definitions: {} })).toBeNull();
  });

  it("gives the compiler's reason for an invalid schema", () => {
    expect(schemaProblem({ type: "objekt" })).toMatch(/type/);
    expect(schemaProblem({ properties: { a: { minimum: "one" } } })).toMatch(/minimum/);
    expect(schemaProblem({ $ref: "https://example.com/remote.json" })).toMatch(/resolve reference/);
    expect(schemaProblem([])).toMatch(/JSON object/);
  });

  it("refuses patterns that backtrack exponentially, and overlong ones", () => {
    expect(schemaProblem({ properties: { a: { type: "string", pattern: "^(a+)+$" } } })).toMatch(/exponential/);
    expect(schemaProblem({ patternProperties: { "(\\w*x?)*y": {} } })).toMatch(/exponential/);
    expect(schemaProblem({ properties: { a: { pattern: "(a)\\1" } } })).toMatch(/backreference/);
    expect(schemaProblem({ properties: { a: { pattern: "a".repeat(SCHEMA_LIMITS.patternChars + 1) } } })).toMatch(/at most/);
    // a property named "pattern" is not a pattern
    expect(schemaProblem({ properties: { pattern: { type: "string" } } })).toBeNull();
    expect(schemaProblem({ properties: { sku: { type: "string", pattern: "^[A-Z]{3}-\\d+$" } } })).toBeNull();
  });

  it("bounds size and depth", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < SCHEMA_LIMITS.depth; i++) deep = { properties: { a: deep } };
    expect(schemaProblem(deep)).toMatch(/nests at most/);
    const big = { enum: Array.from({ length: 20_000 }, (_, i) => `value-${i}`) };
    expect(schemaProblem(big)).toMatch(/KB/);
  });

  it("compiles recursive $ref (it terminates on the data, which is bounded)", () => {
    const tree = {
      $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node",
    };
    expect(schemaProblem(tree)).toBeNull();
  });
});

describe("compilePlan and checkCall", () => {
  it("reports each rule that does not compile by its index", () => {
    const { problems } = compilePlan([orderCompleted, { type: "identify", schema: { type: 7 } as never }]);
    expect(problems.map((p) => p.index)).toEqual([1]);
  });

  it("checks a track call's properties and names each violation's path and keyword", () => {
    const { plan } = compilePlan([orderCompleted]);
    const ok = checkCall(plan, { type: "track", event: "Order Completed", payload: { properties: { total: 9.5, currency: "EUR" } } });
    expect(ok).toEqual({ violations: [], unplanned: false });
    const bad = checkCall(plan, {
      type: "track",
      event: "Order Completed",
      payload: { properties: { currency: "GBP", email: "nope" } },
    });
    expect(bad?.unplanned).toBe(false);
    expect(bad?.violations.map((v) => [v.path, v.rule])).toEqual(
      expect.arrayContaining([
        ["/properties/total", "required"],
        ["/properties/currency", "enum"],
        ["/properties/email", "format"],
      ]),
    );
  });

  it("calls a track event without a rule unplanned; other types without a rule pass", () => {
    const { plan } = compilePlan([orderCompleted]);
    expect(checkCall(plan, { type: "track", event: "Order Complete", payload: {} })).toEqual({ violations: [], unplanned: true });
    expect(checkCall(plan, { type: "identify", event: null, payload: { traits: { x: 1 } } })).toEqual({ violations: [], unplanned: false });
    expect(checkCall(plan, { type: "alias", event: null, payload: {} })).toBeNull();
  });

  it("checks identify and group traits, and page/screen by name with the type's catch-all rule", () => {
    const { plan } = compilePlan([
      { type: "identify", schema: { properties: { age: { type: "integer" } } } },
      { type: "group", schema: { required: ["plan"] } },
      { type: "page", event: "Pricing", schema: { required: ["plan"] } },
      { type: "screen", event: null, schema: { properties: { title: { type: "string" } } } },
    ]);
    expect(checkCall(plan, { type: "identify", event: null, payload: { traits: { age: "x" } } })?.violations[0]).toMatchObject({
      path: "/traits/age",
      rule: "type",
    });
    expect(checkCall(plan, { type: "group", event: null, payload: {} })?.violations[0]).toMatchObject({ path: "/traits/plan" });
    expect(checkCall(plan, { type: "page", event: null, name: "Pricing", payload: { properties: {} } })?.violations).toHaveLength(1);
    expect(checkCall(plan, { type: "page", event: null, name: "Home", payload: { properties: {} } })?.violations).toHaveLength(0);
    expect(checkCall(plan, { type: "screen", event: null, name: "Home", payload: { properties: { title: 1 } } })?.violations).toHaveLength(
      1,
    );
  });

  it("keeps at most MAX_VIOLATIONS_PER_CALL violations and says how many more there were", () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: "string" }]));
    const { plan } = compilePlan([{ type: "track", event: "E", schema: { properties: many } }]);
    const props = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i]));
    const r = checkCall(plan, { type: "track", event: "E", payload: { properties: props } });
    expect(r?.violations).toHaveLength(MAX_VIOLATIONS_PER_CALL);
    expect(r?.violations.at(-1)?.message).toMatch(/10 more/);
  });
});
