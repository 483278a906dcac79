import type { Metadata } from "next";
import { Suspense } from "react";
import { Spinner } from "@/components/ui/card";
import { DeliveryOverview } from "@/components/overview/overview";

export const metadata: Metadata = { title: "Delivery overview" };

export default function OverviewPage() {
  return (
    <Suspense fallback={<Spinner />}>
      <DeliveryOverview />
    </Suspense>
  );
}
