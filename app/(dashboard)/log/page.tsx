import type { Metadata } from "next";
import { Suspense } from "react";
import { Spinner } from "@/components/ui/card";
import { RequestLog } from "@/components/log/request-log";

export const metadata: Metadata = { title: "Request log" };

export default function LogPage() {
  return (
    <Suspense fallback={<Spinner />}>
      <RequestLog />
    </Suspense>
  );
}
