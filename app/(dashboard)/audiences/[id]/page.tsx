import type { Metadata } from "next";
import { AudienceDetail } from "@/components/audiences/audience-detail";
import { getAudience } from "@/lib/audiences/audiences";
import { titleWithName } from "../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Audiences", async (workspaceId) => (await getAudience({ workspaceId, id })).name);
}

export default async function AudiencePage({ params }: Props) {
  const { id } = await params;
  return <AudienceDetail id={id} />;
}
