import type { Metadata } from "next";
import { TrackingPlansList } from "@/components/tracking-plans/plans-list";

export const metadata: Metadata = { title: "Tracking plans" };

export default function TrackingPlansPage() {
  return <TrackingPlansList />;
}
