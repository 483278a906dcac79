import type { Metadata } from "next";
import { CaptureDetail } from "@/components/capture/capture-detail";
import { getCaptureBin } from "@/lib/capture/bins";
import { pageData } from "../../page-data";
import { Prefetched } from "../../prefetch";
import { titleWithName } from "../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  // The name is all the title needs; the base only shapes the URL, which is not used here.
  return titleWithName("Capture URLs", async (workspaceId) => (await getCaptureBin({ workspaceId, id, base: "" })).name || "Capture URL");
}

export default async function CaptureBinPage({ params }: Props) {
  const { id } = await params;
  return (
    <Prefetched queries={[pageData.captureBin(id), pageData.capturedRequests(id), pageData.destinations]}>
      <CaptureDetail id={id} />
    </Prefetched>
  );
}
