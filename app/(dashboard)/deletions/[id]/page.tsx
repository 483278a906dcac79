import type { Metadata } from "next";
import { DeletionDetail } from "@/components/deletions/deletion-detail";

export const metadata: Metadata = { title: "Deletion request" };

export default async function DeletionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <DeletionDetail id={id} />;
}
