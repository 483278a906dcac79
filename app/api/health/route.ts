import { NextResponse } from "next/server";
import { publicRoute } from "@/lib/api/api-route";
import { authEndpoints, type HealthDto } from "@/lib/auth/contract";
import { checkHealth } from "@/lib/platform/health";

export const dynamic = "force-dynamic";

/** Public: database and queue reachable. 200 when healthy, 503 otherwise, never cached. */
export const GET = publicRoute(authEndpoints.health, async () => {
  const health: HealthDto = await checkHealth();
  return NextResponse.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
});
