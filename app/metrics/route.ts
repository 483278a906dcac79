import { safeEqual } from "@/lib/auth/crypto";
import { env } from "@/lib/platform/env";
import { logger } from "@/lib/platform/logger";
import { collectMetrics } from "@/lib/metrics/collect";

export const dynamic = "force-dynamic";

/**
 * Prometheus scrape endpoint. It exposes destination ids, endpoint URLs and volumes, so it is never
 * open: `Authorization: Bearer <EVENTRAIL_METRICS_TOKEN>` (or the operator's admin token).
 */
function authorised(req: Request): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!m) return false;
  const { EVENTRAIL_METRICS_TOKEN: metricsToken, EVENTRAIL_ADMIN_TOKEN: adminToken } = env();
  return [metricsToken, adminToken].some((t) => t !== undefined && safeEqual(m[1], t));
}

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers } });

export async function GET(req: Request) {
  if (!authorised(req)) {
    const configured = env().EVENTRAIL_METRICS_TOKEN || env().EVENTRAIL_ADMIN_TOKEN;
    return text(
      401,
      configured ? "Send Authorization: Bearer <EVENTRAIL_METRICS_TOKEN>\n" : "Set EVENTRAIL_METRICS_TOKEN to enable /metrics\n",
      { "www-authenticate": 'Bearer realm="metrics"' },
    );
  }
  try {
    const m = await collectMetrics();
    return text(200, m.text, { "content-type": m.contentType });
  } catch (err) {
    logger().warn({ err: (err as Error).message }, "metrics scrape failed");
    return text(503, "metrics unavailable: the database did not answer\n");
  }
}
