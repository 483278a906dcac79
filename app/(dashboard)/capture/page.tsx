import { CaptureList } from "@/components/capture/capture-list";

export default function CapturePage() {
  return <CaptureList />;
}
