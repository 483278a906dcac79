// The OpenAPI document (docs/management-api.md#openapi) names exactly the routes app/api serves, each
// with its methods, and is a valid OpenAPI 3.1 document (checked against the official schema).
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../lib/api/endpoints";
import { buildOpenApiDocument } from "../lib/openapi/document";
import { discoverApiRoutes } from "./harness/api-routes";

const doc = buildOpenApiDocument({ version: "0.0.0-test" });
const toOpenApiPath = (route: string) => route.replace(/\[(\w+)\]/g, "{$1}");
type Operation = { requestBody?: { content: { "application/json": { example: unknown } } }; "x-codeSamples": { source: string }[] };
const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Operation })),
);

describe("OpenAPI document", () => {
  it("names every route file's methods, and no route that does not exist", () => {
    const served = discoverApiRoutes().map((r) => `${r.method} ${toOpenApiPath(r.route)}`);
    expect(operations.map((o) => o.key).sort()).toEqual(served.sort());
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result).toMatchObject({ valid: true });
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it("gives every endpoint with a body a request example that its own validation accepts, and every endpoint a curl sample", () => {
    const refused = ENDPOINTS.filter((e) => e.body).flatMap((e) => {
      const op = operations.find((o) => o.key === `${e.method} ${e.path}`)?.op;
      const example = op?.requestBody?.content["application/json"].example;
      const parsed = e.body!.safeParse(example);
      return parsed.success
        ? []
        : [`${e.method} ${e.path}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`];
    });
    expect(refused).toEqual([]);
    for (const { op, key } of operations) expect(op["x-codeSamples"][0].source, key).toContain("curl -X");
  });

  it("describes request bodies from the validating schemas (a required field of the destination form is required here)", () => {
    const create = doc.paths["/api/destinations"].post as {
      requestBody: { content: { "application/json": { schema: { required: string[] } } } };
    };
    expect(create.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["name", "urls"]));
  });
});
