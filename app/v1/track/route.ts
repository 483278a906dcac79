import { trackingRoute } from "@/lib/tracking/route-handler";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = trackingRoute("track");
