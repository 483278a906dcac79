import type { Metadata } from "next";
import { PlanEditor } from "@/components/tracking-plans/plan-editor";

export const metadata: Metadata = { title: "New tracking plan" };

export default function NewTrackingPlanPage() {
  return <PlanEditor />;
}
