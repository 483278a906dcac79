import { SourcesList } from "@/components/sources/sources-list";

export default function SourcesPage() {
  return <SourcesList />;
}
