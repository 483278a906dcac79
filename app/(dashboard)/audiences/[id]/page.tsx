import { AudienceDetail } from "@/components/audiences/audience-detail";

export default async function AudiencePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AudienceDetail id={id} />;
}
