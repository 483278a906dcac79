import { DeletionsList } from "@/components/deletions/deletions-list";

export default function DeletionsPage() {
  return <DeletionsList />;
}
