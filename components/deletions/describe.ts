import type { ErasedCounts } from "@/lib/deletions/contract";

/** Erasing found nothing at all: no event, profile, link, membership or debugger entry of the user. */
export const nothingStored = (erased: ErasedCounts) => Object.values(erased).every((n) => n === 0);

/** The "Erased" cell: not yet, yes — or, for a user Eventrail never saw, that there was nothing to erase. */
export function erasedLabel(u: { done: boolean; erased: ErasedCounts }): string {
  if (!u.done) return "Not yet";
  return nothingStored(u.erased) ? "Nothing stored for this user" : "Yes";
}
