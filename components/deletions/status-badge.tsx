import { Badge } from "@/components/ui/card";

const TONES = {
  pending: "amber",
  running: "indigo",
  completed: "green",
  failed: "red",
  delivered: "green",
} as const;

/** Status of a deletion request (pending/running/completed/failed) or of a notice's delivery. */
export function StatusBadge({ status }: { status: string }) {
  const tone = TONES[status as keyof typeof TONES] ?? "slate";
  return (
    <Badge tone={tone}>
      <span data-status={status}>{status.charAt(0).toUpperCase() + status.slice(1)}</span>
    </Badge>
  );
}
