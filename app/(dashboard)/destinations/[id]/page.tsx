import type { Metadata } from "next";
import { DestinationDetail } from "@/components/destinations/destination-detail";
import { getDestination } from "@/lib/destinations/destinations";
import { pageData } from "../../page-data";
import { Prefetched } from "../../prefetch";
import { titleWithName } from "../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Destinations", async (workspaceId) => (await getDestination({ workspaceId, id })).name);
}

export default async function DestinationPage({ params }: Props) {
  const { id } = await params;
  return (
    <Prefetched
      queries={[
        pageData.destination(id),
        pageData.sources,
        pageData.destinationStats24h,
        pageData.destinationHealth(id),
        pageData.recentAttempts(id),
        pageData.backfills(id),
      ]}
    >
      <DestinationDetail id={id} />
    </Prefetched>
  );
}
