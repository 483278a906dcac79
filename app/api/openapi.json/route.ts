import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/api-route";
import { openApiEndpoints } from "@/lib/openapi/contract";
import { openApiDocument } from "@/lib/openapi/serve";

/** The Management API as OpenAPI 3.1 (docs/management-api.md#openapi), for any member of the workspace. */
export const GET = apiRoute(openApiEndpoints.document, async () =>
  NextResponse.json(openApiDocument(), { headers: { "cache-control": "private, max-age=300" } }),
);
