import { Suspense } from "react";
import { Spinner } from "@/components/ui/card";
import { RequestLog } from "@/components/log/request-log";

export default function LogPage() {
  return (
    <Suspense fallback={<Spinner />}>
      <RequestLog />
    </Suspense>
  );
}
