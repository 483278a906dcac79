import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/card";
import { AudienceForm } from "@/components/audiences/audience-form";

export const metadata: Metadata = { title: "New audience" };

export default function NewAudiencePage() {
  return (
    <>
      <PageHeader
        title="New audience"
        description="Combine trait comparisons and events with AND/OR; the preview counts matching users as you build."
      />
      <AudienceForm />
    </>
  );
}
