import { EditAudience } from "@/components/audiences/edit-audience";

export default async function EditAudiencePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditAudience id={id} />;
}
