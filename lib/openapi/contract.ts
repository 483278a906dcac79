import { z } from "zod";
import { endpoint } from "../api/endpoint";

/**
 * The Management API's own description (docs/management-api.md#openapi): an OpenAPI 3.1 document
 * generated from the endpoint registry (lib/api/endpoints.ts) and the zod schemas that validate
 * each request, so it cannot drift from what the routes accept.
 */
export const openApiDocumentSchema = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string() }).passthrough(),
  paths: z.record(z.string(), z.unknown()),
});

export const openApiEndpoints = {
  document: endpoint({
    method: "GET",
    path: "/api/openapi.json",
    access: "viewer",
    summary: "This API as an OpenAPI 3.1 document, generated from the schemas that validate each request",
    response: openApiDocumentSchema,
  }),
};
