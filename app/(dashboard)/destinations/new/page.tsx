import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/card";
import { DestinationForm } from "@/components/destinations/destination-form";

export const metadata: Metadata = { title: "New destination" };

export default function NewDestinationPage() {
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/destinations" className="text-slate-500 hover:text-slate-800">
          ← Destinations
        </Link>
      </div>
      <PageHeader
        title="New Webhooks destination"
        description="Where Eventrail should POST your events, how to sign them, and which sources feed it."
      />
      <DestinationForm />
    </>
  );
}
