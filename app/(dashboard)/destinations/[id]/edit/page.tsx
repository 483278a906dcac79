import { EditDestination } from "@/components/destinations/edit-destination";

export default async function EditDestinationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditDestination id={id} />;
}
