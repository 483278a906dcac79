import type { Metadata } from "next";
import { EditPlan } from "@/components/tracking-plans/plan-editor";

export const metadata: Metadata = { title: "Tracking plan" };

export default async function TrackingPlanPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditPlan id={id} />;
}
