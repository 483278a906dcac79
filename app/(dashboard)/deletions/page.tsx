import type { Metadata } from "next";
import { DeletionsList } from "@/components/deletions/deletions-list";

export const metadata: Metadata = { title: "Deletions" };

export default function DeletionsPage() {
  return <DeletionsList />;
}
