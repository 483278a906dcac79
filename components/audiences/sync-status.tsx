import type { AudienceSyncDto, SyncStatus } from "@/lib/audiences/contract";
import { Badge } from "@/components/ui/card";

const TONES: Record<SyncStatus, "slate" | "green" | "red" | "amber" | "indigo"> = {
  queued: "slate",
  running: "indigo",
  completed: "green",
  failed: "red",
  skipped: "amber",
};

export function SyncStatusBadge({ status }: { status: SyncStatus }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}

export function formatWhen(iso: string): string {
  return new Date(iso).toLocaleString();
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "1,200 of 3,000 sent" while running; a bar the width of the share. */
export function SyncProgress({ sync }: { sync: AudienceSyncDto }) {
  if (sync.status === "queued") return <span className="text-xs text-slate-500">waiting for a worker…</span>;
  if (sync.status === "running" && sync.total === 0) return <span className="text-xs text-slate-500">computing membership…</span>;
  if (sync.status !== "running" && sync.total === 0) return <span className="text-xs text-slate-500">nothing to send</span>;
  const share = sync.total > 0 ? Math.min(100, Math.round((sync.sent / sync.total) * 100)) : 100;
  return (
    <div className="min-w-32">
      <div className="text-xs tabular-nums text-slate-600">
        {sync.sent.toLocaleString("en-US")} of {sync.total.toLocaleString("en-US")} sent
      </div>
      {sync.status === "running" ? (
        <div
          className="mt-1 h-1.5 w-full overflow-hidden rounded bg-slate-100"
          role="progressbar"
          aria-valuenow={share}
          aria-valuemin={0}
          aria-valuemax={100}
        >
          <div className="h-full bg-indigo-500" style={{ width: `${share}%` }} />
        </div>
      ) : null}
    </div>
  );
}
