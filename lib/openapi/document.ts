import "server-only";
import type { z } from "zod";
import type { Endpoint } from "../api/endpoint";
import { ENDPOINTS_BY_FEATURE } from "../api/endpoints";
import { curlExample, jsonSchema, requestExample, type JsonSchema } from "./examples";

/**
 * The Management API as an OpenAPI 3.1 document (docs/management-api.md#openapi), generated from the
 * endpoint registry: each endpoint's method, path, access and summary, and JSON Schemas (draft
 * 2020-12, the dialect of OpenAPI 3.1) made by zod from the very schemas the routes validate with.
 * Request bodies and queries are described as a client sends them (zod's input side: before
 * defaults and transforms), responses as they come back (the output side).
 */

const ACCESS_NOTE: Record<Endpoint["access"], string> = {
  public: "No authentication.",
  viewer: "Any member of the workspace (or an API token of it, read-only or full).",
  admin: "A workspace admin or owner (or a full API token of the workspace).",
  owner: "A workspace owner.",
  account: "A logged-in dashboard session, about its own account (API tokens get 403).",
  operator: "Only the operator's token (EVENTRAIL_ADMIN_TOKEN).",
};

const ERROR_STATUSES = {
  "400": "Malformed request",
  "401": "Missing or invalid credentials",
  "403": "Not allowed (missing CSRF token, or a role that may not do this)",
  "404": "No such resource in this workspace",
  "409": "Conflict with the current state",
  "413": "Body over its limit",
  "422": "Validation failed; `fields` names each bad field",
  "429": "Too many requests; Retry-After says when to try again",
  "503": "Database unavailable; retry",
} as const;

const pathParams = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));

function queryParams(query: z.ZodType | undefined) {
  if (!query) return [];
  const s = jsonSchema(query, "input");
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: required.has(name),
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    schema,
  }));
}

function operation(feature: string, key: string, ep: Endpoint) {
  const status = String(ep.status ?? (ep.response ? 200 : 204));
  const errors = Object.fromEntries(
    Object.keys(ERROR_STATUSES)
      .filter((code) => ep.access !== "public" || (code !== "401" && code !== "403"))
      .map((code) => [code, { $ref: `#/components/responses/Error${code}` }]),
  );
  const body = ep.body ? jsonSchema(ep.body, "input") : undefined;
  return {
    operationId: `${feature.replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase())}.${key}`,
    tags: [feature],
    summary: ep.summary,
    description: [ep.description, `**Access:** ${ACCESS_NOTE[ep.access]}`].filter(Boolean).join("\n\n"),
    "x-access": ep.access,
    ...(ep.access === "public" ? { security: [] } : {}),
    parameters: [...pathParams(ep.path), ...queryParams(ep.query)],
    ...(body ? { requestBody: { required: true, content: { "application/json": { schema: body, example: requestExample(ep) } } } } : {}),
    responses: {
      [status]: ep.response
        ? { description: "Success", content: { "application/json": { schema: jsonSchema(ep.response, "output") } } }
        : { description: "Success, no content" },
      ...errors,
    },
    "x-codeSamples": [{ lang: "Shell", label: "curl", source: curlExample(ep) }],
  };
}

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        fields: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      },
    },
  },
};

export function buildOpenApiDocument(opts: { version: string; serverUrl?: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [feature, group] of Object.entries(ENDPOINTS_BY_FEATURE)) {
    for (const [key, ep] of Object.entries(group as Record<string, Endpoint>)) {
      paths[ep.path] ??= {};
      paths[ep.path][ep.method.toLowerCase()] = operation(feature, key, ep);
    }
  }
  return {
    openapi: "3.1.1",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    info: {
      title: "Eventrail Management API",
      version: opts.version,
      description:
        "Everything the dashboard does, as JSON under /api. Errors are `{error: {code, message, fields?}}`. A state-changing request made with the session cookie must echo the er_csrf cookie in X-CSRF-Token.",
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    tags: Object.keys(ENDPOINTS_BY_FEATURE).map((name) => ({ name })),
    security: [{ bearer: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API token of the workspace, or EVENTRAIL_ADMIN_TOKEN" },
        session: { type: "apiKey", in: "cookie", name: "er_session", description: "The dashboard's session cookie" },
      },
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.entries(ERROR_STATUSES).map(([code, description]) => [
          `Error${code}`,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
      ),
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
