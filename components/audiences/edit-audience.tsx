"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { AudienceForm } from "./audience-form";
import { audienceKeys, fetchAudience } from "./queries";

export function EditAudience({ id }: { id: string }) {
  const audience = useQuery({ queryKey: audienceKeys.detail(id), queryFn: ({ signal }) => fetchAudience(id, signal) });
  if (audience.isPending) return <Spinner />;
  if (audience.isError) return <ErrorNote error={audience.error} />;
  return (
    <>
      <PageHeader title={`Edit ${audience.data.name}`} />
      <AudienceForm audience={audience.data} />
    </>
  );
}
