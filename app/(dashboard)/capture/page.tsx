import type { Metadata } from "next";
import { CaptureList } from "@/components/capture/capture-list";
import { pageData } from "../page-data";
import { Prefetched } from "../prefetch";

export const metadata: Metadata = { title: "Capture URLs" };

export default function CapturePage() {
  return (
    <Prefetched queries={[pageData.captureBins]}>
      <CaptureList />
    </Prefetched>
  );
}
