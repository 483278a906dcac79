import type { Metadata } from "next";
import { AudiencesList } from "@/components/audiences/audiences-list";

export const metadata: Metadata = { title: "Audiences" };

export default function AudiencesPage() {
  return <AudiencesList />;
}
