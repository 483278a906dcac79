import { CaptureDetail } from "@/components/capture/capture-detail";

export default async function CaptureBinPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <CaptureDetail id={id} />;
}
