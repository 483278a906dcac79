import { describe, expect, it } from "vitest";
import { alertEndpoints } from "../alerts/contract";
import { alertRoutes } from "../alerts/routes";
import { audienceEndpoints } from "../audiences/contract";
import { audienceRoutes } from "../audiences/routes";
import { auditEndpoints } from "../audit/contract";
import { auditRoutes } from "../audit/routes";
import { accountEndpoints, authEndpoints } from "../auth/contract";
import { accountRoutes, authRoutes } from "../auth/routes";
import { backfillEndpoints } from "../backfills/contract";
import { backfillRoutes } from "../backfills/routes";
import { captureEndpoints } from "../capture/contract";
import { captureRoutes } from "../capture/routes";
import { deletionEndpoints } from "../deletions/contract";
import { deletionRoutes } from "../deletions/routes";
import { destinationEndpoints } from "../destinations/contract";
import { destinationRoutes } from "../destinations/routes";
import { memberEndpoints } from "../members/contract";
import { memberRoutes } from "../members/routes";
import { requestLogEndpoints } from "../request-log/contract";
import { requestLogRoutes } from "../request-log/routes";
import { sourceEndpoints } from "../sources/contract";
import { sourceRoutes } from "../sources/routes";
import { trackingPlanEndpoints } from "../tracking-plans/contract";
import { trackingPlanRoutes } from "../tracking-plans/routes";
import type { Endpoint } from "./endpoint";
import type { Route } from "./routes";

const PAIRS: [string, Record<string, Endpoint>, Record<string, Route>][] = [
  ["alerts", alertEndpoints, alertRoutes],
  ["audiences", audienceEndpoints, audienceRoutes],
  ["audit", auditEndpoints, auditRoutes],
  ["account", accountEndpoints, accountRoutes],
  ["auth", authEndpoints, authRoutes],
  ["backfills", backfillEndpoints, backfillRoutes],
  ["capture", captureEndpoints, captureRoutes],
  ["deletions", deletionEndpoints, deletionRoutes],
  ["destinations", destinationEndpoints, destinationRoutes],
  ["members", memberEndpoints, memberRoutes],
  ["request log", requestLogEndpoints, requestLogRoutes],
  ["sources", sourceEndpoints, sourceRoutes],
  ["tracking plans", trackingPlanEndpoints, trackingPlanRoutes],
];

describe("routes", () => {
  it.each(PAIRS)("name every endpoint of the %s contract with its method and path, and nothing else", (_, endpoints, routes) => {
    const asRoute = (table: Record<string, { method: string; path: string }>) =>
      Object.fromEntries(Object.entries(table).map(([name, e]) => [name, `${e.method} ${e.path}`]));
    expect(asRoute(routes)).toEqual(asRoute(endpoints));
  });
});
