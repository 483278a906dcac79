"use client";

import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { DeliveryStatsDto } from "@/lib/request-log/contract";
import { Card } from "@/components/ui/card";
import { formatMs } from "@/components/ui/format";
import { summariseLatency, summariseSuccess, summariseVolume } from "./summaries";

/** Grid, cursor and tooltip follow the theme (CSS variables remapped in dark mode, app/globals.css). */
const THEME = {
  grid: "var(--color-slate-100)",
  cursor: "var(--color-slate-50)",
  tooltip: {
    backgroundColor: "var(--color-white)",
    border: "1px solid var(--color-slate-200)",
    borderRadius: 6,
    color: "var(--color-slate-900)",
    fontSize: 12,
  },
} as const;

const COLORS = { success: "#10b981", retry: "#f59e0b", failed: "#ef4444", p50: "#6366f1", p95: "#a855f7", p99: "#ec4899" };

function tickFormatter(bucketSeconds: number) {
  return (iso: string) => {
    const d = new Date(iso);
    return bucketSeconds >= 3 * 3600
      ? d.toLocaleDateString(undefined, { weekday: "short", hour: "2-digit" })
      : d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  };
}

/**
 * A chart is one image to assistive technology, named by a sentence that sums up its data; the
 * chart itself takes no focus (recharts' keyboard layer is off: it only moves a tooltip).
 */
function ChartCard({ title, label, children }: { title: string; label: string; children: React.ReactElement }) {
  return (
    <Card className="p-4">
      <h2 className="mb-3 text-sm font-semibold text-slate-900">{title}</h2>
      <div role="img" aria-label={label} className="h-56 [&_*]:outline-none">
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
    </Card>
  );
}

export function OverviewCharts({ stats }: { stats: DeliveryStatsDto }) {
  const fmt = tickFormatter(stats.bucketSeconds);
  const data = stats.series.map((s) => ({ ...s, rate: s.successRate == null ? null : Math.round(s.successRate * 1000) / 10 }));
  const axis = { tick: { fontSize: 11, fill: "#64748b" }, tickLine: false, axisLine: false } as const;
  const tooltipLabel = (iso: unknown) => new Date(String(iso)).toLocaleString();

  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <div className="lg:col-span-2">
        <ChartCard title="Volume by outcome" label={summariseVolume(stats)}>
          <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -8 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke={THEME.grid} />
            <XAxis dataKey="start" tickFormatter={fmt} minTickGap={24} {...axis} />
            <YAxis allowDecimals={false} {...axis} />
            <Tooltip labelFormatter={tooltipLabel} cursor={{ fill: THEME.cursor }} contentStyle={THEME.tooltip} />
            <Legend iconType="circle" wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="success" name="Success" stackId="o" fill={COLORS.success} isAnimationActive={false} />
            <Bar dataKey="retry" name="Retrying" stackId="o" fill={COLORS.retry} isAnimationActive={false} />
            <Bar dataKey="failed" name="Failed" stackId="o" fill={COLORS.failed} radius={[2, 2, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ChartCard>
      </div>
      <ChartCard title="Success rate" label={summariseSuccess(stats)}>
        <AreaChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -8 }} accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke={THEME.grid} />
          <XAxis dataKey="start" tickFormatter={fmt} minTickGap={24} {...axis} />
          <YAxis domain={[0, 100]} unit="%" {...axis} />
          <Tooltip labelFormatter={tooltipLabel} formatter={(v) => [`${v}%`, "Success rate"]} contentStyle={THEME.tooltip} />
          <Area
            type="monotone"
            dataKey="rate"
            name="Success rate"
            stroke={COLORS.success}
            fill={COLORS.success}
            fillOpacity={0.15}
            dot={{ r: 2 }}
            connectNulls
            isAnimationActive={false}
          />
        </AreaChart>
      </ChartCard>
      <ChartCard title="Latency" label={summariseLatency(stats)}>
        <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -8 }} accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke={THEME.grid} />
          <XAxis dataKey="start" tickFormatter={fmt} minTickGap={24} {...axis} />
          <YAxis tickFormatter={(v: number) => formatMs(v)} {...axis} width={68} />
          <Tooltip labelFormatter={tooltipLabel} formatter={(v, name) => [formatMs(Number(v)), name]} contentStyle={THEME.tooltip} />
          <Legend iconType="plainline" wrapperStyle={{ fontSize: 12 }} />
          {(["p50", "p95", "p99"] as const).map((k) => (
            <Line
              key={k}
              type="monotone"
              dataKey={k}
              name={k}
              stroke={COLORS[k]}
              dot={{ r: 2 }}
              strokeWidth={2}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ChartCard>
    </div>
  );
}
