"use client";

import { useEffect, useRef, useState } from "react";

/**
 * The overview's charts, drawn as plain SVG: one value per time bucket, as stacked bars, an area or
 * lines, with a y axis of round steps, x labels that keep apart, a legend and a hover readout. A
 * charting library cost the overview more script than the rest of the dashboard together
 * (docs/decisions/0175-dashboard-weight.md); these three shapes are all it drew.
 */
export type ChartSeries = { key: string; name: string; color: string; values: (number | null)[] };

type ChartProps = {
  kind: "stacked-bars" | "area" | "lines";
  /** Each bucket's start (ISO), one per value of every series. */
  starts: string[];
  series: ChartSeries[];
  xLabel: (iso: string) => string;
  tooltipLabel: (iso: string) => string;
  yLabel?: (v: number) => string;
  value?: (v: number) => string;
  /** A fixed top of the y axis (100 for a percentage); otherwise a round step above the largest value. */
  yMax?: number;
  integers?: boolean;
  yAxisWidth?: number;
  legend?: boolean;
};

const PAD = { top: 8, right: 8, bottom: 26 };
const TICK = { fontSize: 11, fill: "var(--color-slate-500)" } as const;

/** 0 and round steps (1, 2 or 5 × 10ⁿ) up to at least `max`: about four of them. */
export function yTicks(max: number, integers = false): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  if (integers) step = Math.max(1, Math.ceil(step));
  const ticks = [0];
  while (ticks[ticks.length - 1] < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

function useSize<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setSize({ width: entry.contentRect.width, height: entry.contentRect.height }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/** A path through the points that have a value (gaps are bridged, as the latest value joins the next). */
function linePath(points: ([number, number] | null)[]): string {
  return points
    .filter((p): p is [number, number] => p !== null)
    .map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`)
    .join("");
}

export function SvgChart(props: ChartProps) {
  const { kind, starts, series, xLabel, tooltipLabel, yLabel = String, value = (v: number) => v.toLocaleString("en-US") } = props;
  const [box, { width, height }] = useSize<HTMLDivElement>();
  const [hover, setHover] = useState<number | null>(null);
  const n = starts.length;
  const left = props.yAxisWidth ?? 40;
  const plotW = Math.max(0, width - left - PAD.right);
  const plotH = Math.max(0, height - PAD.top - PAD.bottom);
  const band = n ? plotW / n : 0;
  const totals = starts.map((_, i) =>
    kind === "stacked-bars" ? series.reduce((a, s) => a + (s.values[i] ?? 0), 0) : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  );
  const ticks = props.yMax != null ? yTicks(props.yMax, props.integers) : yTicks(Math.max(0, ...totals), props.integers);
  const top = ticks[ticks.length - 1] || 1;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const x = (i: number) => left + band * (i + 0.5);
  // Labels keep about 64 px apart, as wide as "Wed 14" or "14:35" with room around it.
  const every = Math.max(1, Math.ceil(64 / Math.max(band, 1)));

  const onMove = (e: React.MouseEvent<SVGSVGElement>) => {
    const at = e.clientX - e.currentTarget.getBoundingClientRect().left - left;
    const i = Math.floor(at / band);
    setHover(band > 0 && i >= 0 && i < n ? i : null);
  };

  return (
    <div className="flex h-full flex-col">
      <div ref={box} className="relative min-h-0 flex-1">
        {width > 0 && height > 0 ? (
          // Out of the flow: a drawn chart must not hold its box at its old width when the window narrows.
          <svg
            width={width}
            height={height}
            className="absolute inset-0 block"
            onMouseMove={onMove}
            onMouseLeave={() => setHover(null)}
            aria-hidden
          >
            {ticks.map((t) => (
              <g key={t}>
                <line x1={left} x2={left + plotW} y1={y(t)} y2={y(t)} stroke="var(--color-slate-100)" />
                <text x={left - 6} y={y(t)} dy="0.32em" textAnchor="end" {...TICK}>
                  {yLabel(t)}
                </text>
              </g>
            ))}
            {starts.map((iso, i) =>
              i % every === 0 ? (
                <text key={iso} x={x(i)} y={height - 8} textAnchor="middle" {...TICK}>
                  {xLabel(iso)}
                </text>
              ) : null,
            )}
            {hover !== null && kind === "stacked-bars" ? (
              <rect x={left + band * hover} y={PAD.top} width={band} height={plotH} fill="var(--color-slate-50)" />
            ) : null}
            {hover !== null && kind !== "stacked-bars" ? (
              <line x1={x(hover)} x2={x(hover)} y1={PAD.top} y2={PAD.top + plotH} stroke="var(--color-slate-300)" />
            ) : null}
            {kind === "stacked-bars" ? <Bars series={series} n={n} x={x} y={y} band={band} /> : null}
            {kind !== "stacked-bars"
              ? series.map((s) => {
                  const points = s.values.map((v, i): [number, number] | null => (v == null ? null : [x(i), y(v)]));
                  const line = linePath(points);
                  const shown = points.filter((p) => p !== null);
                  const area =
                    kind === "area" && shown.length
                      ? `${line}L${shown[shown.length - 1][0].toFixed(1)},${y(0)}L${shown[0][0].toFixed(1)},${y(0)}Z`
                      : null;
                  return (
                    <g key={s.key}>
                      {area ? <path d={area} fill={s.color} fillOpacity={0.15} /> : null}
                      <path d={line} fill="none" stroke={s.color} strokeWidth={2} strokeLinejoin="round" />
                      {shown.map(([px, py]) => (
                        <circle key={px} cx={px} cy={py} r={2} fill="var(--color-white)" stroke={s.color} />
                      ))}
                    </g>
                  );
                })
              : null}
          </svg>
        ) : null}
        {hover !== null ? (
          <div
            className="pointer-events-none absolute top-0 z-10 rounded-md border border-slate-200 bg-white px-2 py-1 text-xs text-slate-900 shadow-sm"
            style={x(hover) > width / 2 ? { right: width - x(hover) + 8 } : { left: x(hover) + 8 }}
          >
            <div className="mb-0.5 whitespace-nowrap font-medium">{tooltipLabel(starts[hover])}</div>
            {series.map((s) => (
              <div key={s.key} className="whitespace-nowrap" style={{ color: s.color }}>
                {s.name}: {s.values[hover] == null ? "—" : value(s.values[hover])}
              </div>
            ))}
          </div>
        ) : null}
      </div>
      {props.legend ? (
        <ul className="mt-1 flex flex-wrap justify-center gap-x-4 text-xs text-slate-600">
          {series.map((s) => (
            <li key={s.key} className="flex items-center gap-1.5">
              <span className="inline-block h-2 w-2 rounded-full" style={{ backgroundColor: s.color }} />
              {s.name}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Bars({
  series,
  n,
  x,
  y,
  band,
}: {
  series: ChartSeries[];
  n: number;
  x: (i: number) => number;
  y: (v: number) => number;
  band: number;
}) {
  const w = Math.max(1, Math.min(band * 0.8, 48));
  const rects: React.ReactElement[] = [];
  for (let i = 0; i < n; i++) {
    let base = 0;
    for (const s of series) {
      const v = s.values[i] ?? 0;
      if (v > 0)
        rects.push(<rect key={`${s.key}-${i}`} x={x(i) - w / 2} y={y(base + v)} width={w} height={y(base) - y(base + v)} fill={s.color} />);
      base += v;
    }
  }
  return <g>{rects}</g>;
}
