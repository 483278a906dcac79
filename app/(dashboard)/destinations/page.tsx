import type { Metadata } from "next";
import { DestinationsList } from "@/components/destinations/destinations-list";

export const metadata: Metadata = { title: "Destinations" };

export default function DestinationsPage() {
  return <DestinationsList />;
}
