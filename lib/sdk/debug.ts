/**
 * `DEBUG=analytics` logging. The library reads process.env itself (not lib/platform/env.ts) because users import
 * it outside the app. Callers pass lines that never contain the write key.
 */
export type DebugLog = ((line: string) => void) | undefined;

/** True when DEBUG (comma- or space-separated, as in the `debug` package) names analytics or `*`. */
export function debugEnabled(value: string | undefined): boolean {
  if (!value) return false;
  return value.split(/[\s,]+/).some((name) => name === "*" || name === "analytics" || name === "analytics*" || name === "analytics:*");
}

export function createDebugLog(option: boolean | ((line: string) => void) | undefined): DebugLog {
  if (typeof option === "function") return option;
  const enabled = option ?? debugEnabled(process.env.DEBUG);
  if (!enabled) return undefined;
  return (line) => process.stderr.write(`analytics ${new Date().toISOString()} ${line}\n`);
}
