import type { Metadata } from "next";
import { SourcesList } from "@/components/sources/sources-list";
import { pageData } from "../page-data";
import { Prefetched } from "../prefetch";

export const metadata: Metadata = { title: "Sources" };

export default function SourcesPage() {
  return (
    <Prefetched queries={[pageData.sources]}>
      <SourcesList />
    </Prefetched>
  );
}
