"use client";

import { ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { AudienceForm } from "./audience-form";
import { useAudience } from "./hooks";

export function EditAudience({ id }: { id: string }) {
  const audience = useAudience(id);
  if (audience.isPending) return <Spinner />;
  if (audience.isError) return <ErrorNote error={audience.error} />;
  return (
    <>
      <PageHeader title={`Edit ${audience.data.name}`} />
      <AudienceForm audience={audience.data} />
    </>
  );
}
