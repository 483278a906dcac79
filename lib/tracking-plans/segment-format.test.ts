import Ajv from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { checkCall, compilePlan } from "./compile";
import { fromSegmentPlan, toSegmentPlan } from "./segment-format";

/**
 * A plan as Segment's Config API documents it (POST /v1beta/workspaces/…/tracking-plans): each
 * event's `rules` is a draft-07 schema of the whole call, the checked part under `properties.properties`.
 */
const segmentPlan = {
  tracking_plan: {
    display_name: "Shop App",
    rules: {
      global: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { context: { type: "object", properties: { app: { type: "object" } } }, traits: {}, properties: {} },
      },
      events: [
        {
          name: "Order Completed",
          description: "A checkout went through",
          version: 1,
          rules: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: {
              context: {},
              traits: {},
              properties: {
                type: "object",
                properties: {
                  order_id: { type: ["string"] },
                  total: { type: ["number"], minimum: 0 },
                  coupon: { type: ["string", "null"] },
                  products: { type: "array", items: { $ref: "#/definitions/product" } },
                },
                required: ["order_id", "total"],
              },
            },
            required: ["properties"],
            definitions: { product: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] } },
          },
        },
        {
          name: "Product Viewed",
          version: 1,
          rules: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: { properties: { type: "object", properties: { sku: { type: "string", pattern: "^[A-Z]{2}-\\d{3}$" } } } },
          },
        },
      ],
      identify: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { traits: { type: "object", properties: { email: { type: "string", format: "email" } }, required: ["email"] } },
        required: ["traits"],
      },
      group: {},
    },
  },
};

const calls = [
  { type: "track", event: "Order Completed", properties: { order_id: "o1", total: 10, coupon: null } },
  { type: "track", event: "Order Completed", properties: { order_id: 1, total: -1 } },
  { type: "track", event: "Order Completed", properties: { total: 3, products: [{ sku: "a" }, { name: "no sku" }] } },
  { type: "track", event: "Order Completed", properties: {} },
  { type: "track", event: "Product Viewed", properties: { sku: "AB-123" } },
  { type: "track", event: "Product Viewed", properties: { sku: "ab-1234" } },
  { type: "identify", traits: { email: "ada@example.com" } },
  { type: "identify", traits: { email: "not an email" } },
  { type: "identify", traits: { name: "Ada" } },
];

describe("fromSegmentPlan", () => {
  it("reads a Config API plan: events, identify traits, the name; global rules are reported as left out", () => {
    const imported = fromSegmentPlan(segmentPlan);
    expect(imported.name).toBe("Shop App");
    expect(imported.rules.map((r) => [r.type, r.event])).toEqual([
      ["track", "Order Completed"],
      ["track", "Product Viewed"],
      ["identify", null],
    ]);
    expect(imported.rules[0].description).toBe("A checkout went through");
    expect(imported.problems).toEqual([expect.objectContaining({ path: "rules.global" })]);
    expect(compilePlan(imported.rules).problems).toEqual([]);
  });

  it("validates the same calls the same way as Segment's whole-call schemas", () => {
    const imported = fromSegmentPlan(segmentPlan);
    const { plan } = compilePlan(imported.rules);
    // The oracle: Segment's own schemas, each over the whole call, with a plain draft-07 ajv.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const rules = segmentPlan.tracking_plan.rules;
    const segmentValid = (call: (typeof calls)[number]) => {
      const schema = call.type === "identify" ? rules.identify : rules.events.find((e) => e.name === call.event)!.rules;
      return ajv.validate(schema, call);
    };
    const verdicts = calls.map((call) => {
      const ours = checkCall(plan, { type: call.type, event: call.event ?? null, payload: call as Record<string, unknown> });
      return { ours: ours?.violations.length === 0, segment: segmentValid(call) };
    });
    for (const v of verdicts) expect(v.ours).toBe(v.segment);
    // and the calls are not all alike
    expect(verdicts.filter((v) => v.ours)).toHaveLength(3);
  });

  it("reads Public API rules ({type, key, jsonSchema}), PAGE by name", () => {
    const imported = fromSegmentPlan({
      name: "Web",
      rules: [
        { type: "TRACK", key: "Signed Up", version: 1, jsonSchema: { properties: { properties: { required: ["plan"] } } } },
        { type: "PAGE", key: "Pricing", version: 1, jsonSchema: { properties: { properties: { type: "object" } } } },
        { type: "COMMON", key: "", version: 1, jsonSchema: {} },
      ],
    });
    expect(imported.name).toBe("Web");
    expect(imported.rules.map((r) => [r.type, r.event, r.schema])).toEqual([
      ["track", "Signed Up", { required: ["plan"] }],
      ["page", "Pricing", { type: "object" }],
    ]);
    expect(imported.problems).toHaveLength(1);
  });
});

describe("toSegmentPlan", () => {
  it("writes the Config API shape, which reads back to the same rules", () => {
    const { rules } = fromSegmentPlan(segmentPlan);
    const withPage = [...rules, { type: "page" as const, event: "Pricing", schema: { required: ["plan"] } }];
    const exported = toSegmentPlan({
      name: "Shop App",
      rules: withPage,
      createdAt: "2026-12-06T00:00:00.000Z",
      updatedAt: "2026-12-06T00:00:00.000Z",
    });
    expect(exported).toMatchObject({
      display_name: "Shop App",
      rules: { events: [{ name: "Order Completed", rules: { type: "object", required: ["properties"] } }, { name: "Product Viewed" }] },
    });
    const again = fromSegmentPlan(exported);
    expect(again.rules).toEqual(
      withPage.map((r) => ({ ...r, schema: { $schema: "http://json-schema.org/draft-07/schema#", ...r.schema } })),
    );
  });
});
