import "server-only";
import pkg from "../../package.json" with { type: "json" };
import { env } from "../platform/env";
import { buildOpenApiDocument, type OpenApiDocument } from "./document";

let cached: OpenApiDocument | undefined;

/** The document for this install: built once per process (the endpoints do not change while it runs). */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument({ version: pkg.version, serverUrl: env().EVENTRAIL_PUBLIC_URL });
  return cached;
}
