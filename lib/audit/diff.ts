import "server-only";
import type { FieldChanges } from "./record";

/** How a secret's change is written in the audit log: that it changed, never the value (docs/management-api.md#audit-log). */
export const CHANGED = "changed";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields that differ between two snapshots of a resource, before → after; the `secret` fields
 * are written only as CHANGED (set, removed or replaced all read the same). Pure.
 */
export function diffFields<T extends Record<string, unknown>>(
  before: T | null,
  after: T | null,
  opts: { secret?: readonly (keyof T)[] } = {},
): FieldChanges {
  const secret = new Set<keyof T>(opts.secret ?? []);
  const keys = new Set<keyof T>([...Object.keys(before ?? {}), ...Object.keys(after ?? {})] as (keyof T)[]);
  const out: FieldChanges = {};
  for (const k of keys) {
    const b = before?.[k] ?? null;
    const a = after?.[k] ?? null;
    if (same(b, a)) continue;
    out[String(k)] = secret.has(k) ? { before: CHANGED, after: CHANGED } : { before: b, after: a };
  }
  return out;
}
