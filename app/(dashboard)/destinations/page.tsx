import { DestinationsList } from "@/components/destinations/destinations-list";

export default function DestinationsPage() {
  return <DestinationsList />;
}
