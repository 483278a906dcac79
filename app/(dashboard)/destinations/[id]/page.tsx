import type { Metadata } from "next";
import { DestinationDetail } from "@/components/destinations/destination-detail";
import { getDestination } from "@/lib/destinations/destinations";
import { titleWithName } from "../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Destinations", async (workspaceId) => (await getDestination({ workspaceId, id })).name);
}

export default async function DestinationPage({ params }: Props) {
  const { id } = await params;
  return <DestinationDetail id={id} />;
}
