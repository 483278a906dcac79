import type { Metadata } from "next";
import { CaptureList } from "@/components/capture/capture-list";

export const metadata: Metadata = { title: "Capture URLs" };

export default function CapturePage() {
  return <CaptureList />;
}
