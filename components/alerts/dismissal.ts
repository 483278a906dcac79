import type { EndpointAlertDto } from "@/lib/alerts/contract";

/**
 * What a dismissal of the one-line alert notice covers: the open alerts as they stand (which
 * alerts, and whether each has disabled its URL). A new alert, a resolved one or a URL disabled
 * since makes a different key, so the notice comes back when the state changes.
 */
export function alertStateKey(open: Pick<EndpointAlertDto, "id" | "disabledAt">[]): string {
  return open
    .map((a) => `${a.id}${a.disabledAt ? ":disabled" : ""}`)
    .sort()
    .join(",");
}

/** The browser-storage key of one member's dismissal: each member dismisses for themself. */
export const dismissalStorageKey = (userId: string) => `eventrail:alerts-dismissed:${userId}`;

/** The notice's one line: how many endpoints, and the worst thing that happened to them. */
export function alertSummary(open: Pick<EndpointAlertDto, "disabledAt">[]): string {
  const disabled = open.filter((a) => a.disabledAt).length;
  const n = open.length;
  const head = n === 1 ? "1 endpoint needs attention" : `${n.toLocaleString("en-US")} endpoints need attention`;
  if (disabled === 0) return head;
  return `${head} (${disabled === n ? (n === 1 ? "disabled" : "all disabled") : `${disabled.toLocaleString("en-US")} disabled`})`;
}
