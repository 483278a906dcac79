import type { Metadata } from "next";
import { DestinationsList } from "@/components/destinations/destinations-list";
import { pageData } from "../page-data";
import { Prefetched } from "../prefetch";

export const metadata: Metadata = { title: "Destinations" };

export default function DestinationsPage() {
  return (
    <Prefetched queries={[pageData.destinations, pageData.sources, pageData.destinationStats24h]}>
      <DestinationsList />
    </Prefetched>
  );
}
