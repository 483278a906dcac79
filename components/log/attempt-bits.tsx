import type { AttemptDto } from "@/lib/request-log/contract";
import { Badge } from "@/components/ui/card";
import { statusTone } from "@/components/ui/format";

const OUTCOME = {
  success: { tone: "green", label: "Success" },
  retry: { tone: "amber", label: "Retrying" },
  failed: { tone: "red", label: "Failed" },
} as const;

export function OutcomeBadge({ outcome }: { outcome: AttemptDto["outcome"] }) {
  const o = OUTCOME[outcome] ?? { tone: "slate" as const, label: outcome };
  return <Badge tone={o.tone}>{o.label}</Badge>;
}

/** The HTTP status, or the error kind when there was no response (timeout, connection…). */
export function StatusBadge({ attempt }: { attempt: Pick<AttemptDto, "responseStatus" | "errorKind"> }) {
  if (attempt.responseStatus != null) return <Badge tone={statusTone(attempt.responseStatus)}>{attempt.responseStatus}</Badge>;
  return <Badge tone="red">{attempt.errorKind ?? "error"}</Badge>;
}
