import type { Metadata } from "next";
import { EditDestination } from "@/components/destinations/edit-destination";
import { getDestination } from "@/lib/destinations/destinations";
import { titleWithName } from "../../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Edit destination", async (workspaceId) => (await getDestination({ workspaceId, id })).name);
}

export default async function EditDestinationPage({ params }: Props) {
  const { id } = await params;
  return <EditDestination id={id} />;
}
