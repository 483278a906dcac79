import { trackingRoute } from "@/lib/tracking/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = trackingRoute("alias");
