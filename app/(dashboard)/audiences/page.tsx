import { AudiencesList } from "@/components/audiences/audiences-list";

export default function AudiencesPage() {
  return <AudiencesList />;
}
