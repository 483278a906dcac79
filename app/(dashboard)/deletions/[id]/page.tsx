import { DeletionDetail } from "@/components/deletions/deletion-detail";

export default async function DeletionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <DeletionDetail id={id} />;
}
