import { DestinationDetail } from "@/components/destinations/destination-detail";

export default async function DestinationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <DestinationDetail id={id} />;
}
