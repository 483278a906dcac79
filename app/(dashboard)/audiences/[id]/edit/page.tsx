import type { Metadata } from "next";
import { EditAudience } from "@/components/audiences/edit-audience";
import { getAudience } from "@/lib/audiences/audiences";
import { titleWithName } from "../../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Edit audience", async (workspaceId) => (await getAudience({ workspaceId, id })).name);
}

export default async function EditAudiencePage({ params }: Props) {
  const { id } = await params;
  return <EditAudience id={id} />;
}
