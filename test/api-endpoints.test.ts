// The Management API as declared (lib/api/endpoints.ts, from each feature's contract) and as served
// (the route handlers under app/api) are the same set: a route file whose handler has no declared
// endpoint, or a declared endpoint without a route, fails here. Each handler is also bound to the
// endpoint of its own method and path (apiRoute(featureEndpoints.x, …) where x is declared as such).
import { describe, expect, it } from "vitest";
import type { Endpoint } from "../lib/api/endpoint";
import { ENDPOINTS } from "../lib/api/endpoints";
import { alertEndpoints } from "../lib/alerts/contract";
import { audienceEndpoints } from "../lib/audiences/contract";
import { auditEndpoints } from "../lib/audit/contract";
import { backfillEndpoints } from "../lib/backfills/contract";
import { accountEndpoints, authEndpoints } from "../lib/auth/contract";
import { captureEndpoints } from "../lib/capture/contract";
import { deletionEndpoints } from "../lib/deletions/contract";
import { destinationEndpoints } from "../lib/destinations/contract";
import { openApiEndpoints } from "../lib/openapi/contract";
import { memberEndpoints } from "../lib/members/contract";
import { requestLogEndpoints } from "../lib/request-log/contract";
import { sourceEndpoints } from "../lib/sources/contract";
import { trackingPlanEndpoints } from "../lib/tracking-plans/contract";
import { discoverApiRoutes } from "./harness/api-routes";

const served = discoverApiRoutes();
/** The contracts' endpoint groups by the names route files import them under. */
const GROUPS: Record<string, Record<string, Endpoint>> = {
  alertEndpoints,
  accountEndpoints,
  audienceEndpoints,
  auditEndpoints,
  authEndpoints,
  backfillEndpoints,
  captureEndpoints,
  deletionEndpoints,
  destinationEndpoints,
  openApiEndpoints,
  memberEndpoints,
  requestLogEndpoints,
  sourceEndpoints,
  trackingPlanEndpoints,
};
const resolve = (ref: string | undefined): Endpoint | undefined => {
  const [group, name] = (ref ?? "").split(".");
  return GROUPS[group]?.[name];
};
/** app/api/destinations/[id]/route.ts → /api/destinations/{id} */
const toOpenApiPath = (route: string) => route.replace(/\[(\w+)\]/g, "{$1}");

describe("Management API endpoints", () => {
  it("declares exactly the routes that app/api serves", () => {
    const declared = ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort();
    expect(declared).toEqual(served.map((r) => `${r.method} ${toOpenApiPath(r.route)}`).sort());
  });

  it("declares each method and path once", () => {
    const keys = ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it("binds every handler to the endpoint of its own method and path", () => {
    const wrong = served.filter((r) => {
      const bound = resolve(r.endpointRef);
      return bound === undefined || `${bound.method} ${bound.path}` !== `${r.method} ${toOpenApiPath(r.route)}`;
    });
    expect(wrong.map((r) => `${r.key} → ${r.endpointRef ?? "no endpoint"}`)).toEqual([]);
  });

  it("describes every endpoint: a summary, an access rule, and a response schema unless it answers 204", () => {
    const incomplete = ENDPOINTS.filter(
      (e) => e.summary.trim().length < 8 || (e.status !== 204 && e.response === undefined && e.method !== "DELETE"),
    );
    expect(incomplete.map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });
});
