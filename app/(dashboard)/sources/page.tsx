import type { Metadata } from "next";
import { SourcesList } from "@/components/sources/sources-list";

export const metadata: Metadata = { title: "Sources" };

export default function SourcesPage() {
  return <SourcesList />;
}
