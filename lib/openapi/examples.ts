import { z } from "zod";
import type { Endpoint } from "../api/endpoint";

// Browser-safe (zod only): the API reference page renders these examples too.

/** A JSON Schema as zod's z.toJSONSchema writes it (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

const SAMPLE_ID = "3f0c9a4e-8d1b-4c2a-9e57-1b2c3d4e5f60";
const SAMPLE_CONDITION = { event: "Order Completed", atLeast: 3, withinDays: 30 };
const SAMPLE_PLAN_RULE = {
  type: "track",
  event: "Order Completed",
  schema: { type: "object", properties: { total: { type: "number", minimum: 0 } }, required: ["total"] },
};

/**
 * Hand-written request examples where a schema's rules say more than its JSON Schema can (a URL
 * checked by a refinement, "ids or filter", a condition tree). test/openapi.test.ts proves every
 * example, generated or written here, passes its endpoint's own validation.
 */
const WRITTEN: Record<string, unknown> = {
  "POST /api/destinations": { name: "Orders service", urls: ["https://example.com/hooks/eventrail"], sourceIds: [SAMPLE_ID] },
  "POST /api/destinations/{id}/reveal": { secret: "sharedSecret" },
  "POST /api/destinations/{id}/rotate-secret": { secret: "sharedSecret", graceMinutes: 1440 },
  "POST /api/destinations/mapping-preview": {
    sourceIds: [SAMPLE_ID],
    urls: ["https://api.example.com/users/{{userId}}"],
    method: "PUT",
    mapping: { email: { "@path": "$.traits.email" }, plan: { "@template": "{{traits.plan}}" } },
  },
  "POST /api/destinations/{id}/enable-url": { url: "https://example.com/hooks/eventrail" },
  "PUT /api/alerts/settings": { failingMinutes: 15, successRatePercent: 50, notifyUrl: "https://hooks.slack.com/services/T000/B000/XXXX" },
  "POST /api/messages/replay": { ids: [SAMPLE_ID] },
  "POST /api/audiences": { name: "Repeat buyers", sourceIds: [SAMPLE_ID], condition: SAMPLE_CONDITION },
  "POST /api/audiences/preview": { sourceIds: [SAMPLE_ID], condition: SAMPLE_CONDITION },
  "POST /api/tracking-plans": {
    name: "Shop",
    violations: "flag",
    unplanned: "flag",
    sourceIds: [SAMPLE_ID],
    rules: [SAMPLE_PLAN_RULE, { type: "identify", event: null, schema: { properties: { email: { type: "string", format: "email" } } } }],
  },
  "POST /api/tracking-plans/preview": { rules: [SAMPLE_PLAN_RULE], violations: "block", sourceIds: [SAMPLE_ID] },
  "POST /api/tracking-plans/validate-schema": { schema: SAMPLE_PLAN_RULE.schema },
};

const STRING_BY_FORMAT: Record<string, string> = {
  uuid: SAMPLE_ID,
  uri: "https://example.com/hooks/eventrail",
  url: "https://example.com/hooks/eventrail",
  email: "ada@example.com",
  "date-time": "2026-11-21T15:05:50.000Z",
  date: "2026-11-21",
};

/**
 * A small example value that fits a schema: the required fields (and those with a default), each
 * with its default, first enum value, or a value of its type. The API reference shows it as the
 * request example (docs/management-api.md#openapi); a hand-written `examples` entry wins.
 */
export function exampleOf(schema: JsonSchema, depth = 0): unknown {
  if (depth > 8) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants?.length) return exampleOf(variants.find((v) => v.type !== "null") ?? variants[0], depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length) return exampleOf(schema.allOf[0] as JsonSchema, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [name, p] of Object.entries(props)) {
        if (required.has(name) || p.default !== undefined) out[name] = exampleOf(p, depth + 1);
      }
      return out;
    }
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 1;
      return schema.items ? Array.from({ length: Math.max(1, min) }, () => exampleOf(schema.items as JsonSchema, depth + 1)) : [];
    }
    case "string":
      return (
        STRING_BY_FORMAT[schema.format as string] ??
        (typeof schema.minLength === "number" && schema.minLength > 6 ? "x".repeat(schema.minLength) : "string")
      );
    case "integer":
    case "number":
      return typeof schema.minimum === "number"
        ? schema.minimum
        : typeof schema.exclusiveMinimum === "number"
          ? schema.exclusiveMinimum + 1
          : 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

/** An endpoint's schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a client sends it (input) or receives it (output). */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // Refinements and transforms have no JSON Schema: "any" keeps the rest of the schema instead of failing.
  const { $schema: _, ...out } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return out;
}

/** A curl command for the endpoint, with an example body, as the reference page shows it. */
export function curlExample(ep: Endpoint): string {
  const url = `http://localhost:3000${ep.path.replace(/\{(\w+)\}/g, (_, n: string) => `<${n}>`)}`;
  const lines = [`curl -X ${ep.method} '${url}'`];
  if (ep.access !== "public") lines.push(`  -H 'Authorization: Bearer <API token>'`);
  if (ep.body) {
    lines.push(`  -H 'Content-Type: application/json'`);
    lines.push(`  -d '${JSON.stringify(requestExample(ep)).replace(/'/g, "'\\''")}'`);
  }
  return lines.join(" \\\n");
}

/** The request body example of an endpoint: written above, or made from its schema; undefined without a body. */
export function requestExample(ep: Endpoint): unknown {
  if (!ep.body) return undefined;
  return WRITTEN[`${ep.method} ${ep.path}`] ?? exampleOf(jsonSchema(ep.body, "input"));
}
