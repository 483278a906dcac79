/** Reading Prometheus text exposition in tests and drills: series → value. */
export type Series = { name: string; labels: Record<string, string>; value: number };

export function parseMetrics(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not exposition format: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** Sum of the series of `name` whose labels include `match`. */
export function sumOf(series: Series[], name: string, match: Record<string, string> = {}): number {
  return series
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((t, s) => t + s.value, 0);
}
