import "server-only";
import { AppError } from "../platform/errors";

export type StoredHeader = { name: string; value: string };
export type HeaderPatch = { name: string; value?: string | null };

/**
 * A PATCH's header list applied to the stored one (docs/management-api.md#resources). Values are
 * write-only, so an entry may leave `value` out to keep the stored value of the header with that name
 * (in any letter case); null or "" (null by the contract) removes it; a string replaces it. Headers
 * not in the list are removed. Pure.
 */
export function mergeHeaders(stored: StoredHeader[], patch: HeaderPatch[]): StoredHeader[] {
  const byName = new Map(stored.map((h) => [h.name.toLowerCase(), h.value]));
  const fields: Record<string, string[]> = {};
  const out: StoredHeader[] = [];
  patch.forEach((h, i) => {
    if (h.value === null) return;
    const value = h.value ?? byName.get(h.name.toLowerCase());
    if (value === undefined) fields[`headers.${i}.value`] = ["Enter a value: no header of this name is set yet"];
    else out.push({ name: h.name, value });
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);
  return out;
}
