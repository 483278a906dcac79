"use client";

import Link from "next/link";
import { ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { DestinationForm } from "./destination-form";
import { useDestination } from "./hooks";

export function EditDestination({ id }: { id: string }) {
  const destination = useDestination(id);
  if (destination.isPending) return <Spinner />;
  if (destination.isError) return <ErrorNote error={destination.error} />;
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href={`/destinations/${id}`} className="text-slate-500 hover:text-slate-800">
          ← {destination.data.name}
        </Link>
      </div>
      <PageHeader title={`Edit ${destination.data.name}`} />
      <DestinationForm destination={destination.data} />
    </>
  );
}
