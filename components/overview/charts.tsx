"use client";

import type { DeliveryStatsDto } from "@/lib/request-log/contract";
import { Card } from "@/components/ui/card";
import { formatMs } from "@/components/ui/format";
import { SvgChart } from "./svg-chart";
import { summariseLatency, summariseSuccess, summariseVolume } from "./summaries";

const COLORS = { success: "#10b981", retry: "#f59e0b", failed: "#ef4444", p50: "#6366f1", p95: "#a855f7", p99: "#ec4899" };

function tickFormatter(bucketSeconds: number) {
  return (iso: string) => {
    const d = new Date(iso);
    return bucketSeconds >= 3 * 3600
      ? d.toLocaleDateString(undefined, { weekday: "short", hour: "2-digit" })
      : d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  };
}

/** A chart is one image to assistive technology, named by a sentence that sums up its data; it takes no focus. */
function ChartCard({ title, label, children }: { title: string; label: string; children: React.ReactElement }) {
  return (
    <Card className="p-4">
      <h2 className="mb-3 text-sm font-semibold text-slate-900">{title}</h2>
      <div role="img" aria-label={label} className="h-56">
        {children}
      </div>
    </Card>
  );
}

export function OverviewCharts({ stats }: { stats: DeliveryStatsDto }) {
  const fmt = tickFormatter(stats.bucketSeconds);
  const starts = stats.series.map((s) => s.start);
  const rates = stats.series.map((s) => (s.successRate == null ? null : Math.round(s.successRate * 1000) / 10));
  const tooltipLabel = (iso: string) => new Date(iso).toLocaleString();
  const column = (k: "success" | "retry" | "failed" | "p50" | "p95" | "p99") => stats.series.map((s) => s[k]);

  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <div className="lg:col-span-2">
        <ChartCard title="Volume by outcome" label={summariseVolume(stats)}>
          <SvgChart
            kind="stacked-bars"
            starts={starts}
            xLabel={fmt}
            tooltipLabel={tooltipLabel}
            integers
            legend
            series={[
              { key: "success", name: "Success", color: COLORS.success, values: column("success") },
              { key: "retry", name: "Retrying", color: COLORS.retry, values: column("retry") },
              { key: "failed", name: "Failed", color: COLORS.failed, values: column("failed") },
            ]}
          />
        </ChartCard>
      </div>
      <ChartCard title="Success rate" label={summariseSuccess(stats)}>
        <SvgChart
          kind="area"
          starts={starts}
          xLabel={fmt}
          tooltipLabel={tooltipLabel}
          yMax={100}
          yLabel={(v) => `${v}%`}
          value={(v) => `${v}%`}
          series={[{ key: "rate", name: "Success rate", color: COLORS.success, values: rates }]}
        />
      </ChartCard>
      <ChartCard title="Latency" label={summariseLatency(stats)}>
        <SvgChart
          kind="lines"
          starts={starts}
          xLabel={fmt}
          tooltipLabel={tooltipLabel}
          yLabel={(v) => formatMs(v)}
          value={(v) => formatMs(v)}
          yAxisWidth={60}
          legend
          series={(["p50", "p95", "p99"] as const).map((k) => ({ key: k, name: k, color: COLORS[k], values: column(k) }))}
        />
      </ChartCard>
    </div>
  );
}
