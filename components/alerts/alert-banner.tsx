"use client";

import { ShortValue } from "@/components/ui/short-url";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import type { EndpointAlertDto } from "@/lib/alerts/contract";
import { Button } from "@/components/ui/button";
import { TimeAgo } from "@/components/ui/format";
import { alertStateKey, alertSummary, dismissalStorageKey } from "./dismissal";
import { useAlerts, useEnableUrlMutation } from "./hooks";
import { describeErrorText } from "@/components/ui/describe-error";

/** "expires on 2026-12-20 (in 13 days)" or "expired on …", as the notice says it (lib/alerts/messages.ts). */
function certificateEnd(expiresAt: string): string {
  const ms = Date.parse(expiresAt) - Date.now();
  const day = expiresAt.slice(0, 10);
  if (ms <= 0) return `expired on ${day}`;
  const days = Math.floor(ms / 86_400_000);
  return `expires on ${day} (${days === 0 ? "within a day" : `in ${days} day${days === 1 ? "" : "s"}`})`;
}

/** What is wrong, in the words of docs/alerts.md#notices. */
function problem(a: EndpointAlertDto): string {
  if (a.reason === "certificate" && a.certificate)
    return `sends the client certificate ${a.certificate.subject}, which ${certificateEnd(a.certificate.expiresAt)}: replace it before it ends`;
  const error = a.lastError ? ` (last error: ${describeErrorText(a.lastError)})` : "";
  if (a.disabledAt) return `disabled after failing for days${error}: it gets no deliveries until re-enabled`;
  if (a.reason === "success_rate" && a.successRate !== null) {
    return `only ${Math.round(a.successRate * 100)}% of attempts succeeded over the last hour${error}`;
  }
  return `failing with no success${error}`;
}

function AlertLine({ alert }: { alert: EndpointAlertDto }) {
  const enable = useEnableUrlMutation();
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-1.5">
      <p className="min-w-0 text-sm [overflow-wrap:anywhere]">
        <Link href={`/destinations/${alert.destinationId}`} className="font-semibold underline">
          <bdi>{alert.destinationName}</bdi>
        </Link>{" "}
        <ShortValue value={alert.url} max={60} className="font-mono text-xs" /> {problem(alert)}
        {alert.failingSince && !alert.disabledAt ? (
          <>
            {" "}
            · since <TimeAgo iso={alert.failingSince} />
          </>
        ) : null}
      </p>
      {alert.disabledAt ? (
        <Button
          variant="secondary"
          disabled={enable.isPending}
          onClick={() => enable.mutate({ destinationId: alert.destinationId, url: alert.url })}
          aria-label={`Re-enable ${alert.url}`}
        >
          Re-enable
        </Button>
      ) : null}
      {enable.isError ? (
        <p role="alert" className="w-full text-xs text-red-700">
          {(enable.error as Error).message}
        </p>
      ) : null}
    </li>
  );
}

/**
 * Every open alert of the workspace (docs/alerts.md#notices), with a one-click re-enable for URLs the
 * alerts disabled: the overview's full list, which the one-line notice on other pages points to.
 */
export function AlertList() {
  const alerts = useAlerts();
  const open = alerts.data?.open ?? [];
  if (open.length === 0) return null;
  const disabled = open.some((a) => a.disabledAt);
  return (
    <section
      id="alerts"
      aria-label="Endpoint alerts"
      data-testid="alert-list"
      className={`mb-6 rounded-lg px-4 py-3 ring-1 ${disabled ? "bg-red-50 text-red-900 ring-red-200" : "bg-amber-50 text-amber-900 ring-amber-200"}`}
    >
      <h2 className="text-sm font-semibold">
        {open.length === 1 ? "An endpoint needs attention" : `${open.length} endpoints need attention`}
      </h2>
      <ul className="mt-1 divide-y divide-black/10">
        {open.map((a) => (
          <AlertLine key={a.id} alert={a} />
        ))}
      </ul>
    </section>
  );
}

function readDismissed(userId: string): string | null {
  try {
    return window.localStorage.getItem(dismissalStorageKey(userId));
  } catch {
    return null;
  }
}

/**
 * One line above every page but the overview: how many endpoints need attention, a link to the
 * overview's full list, and Dismiss. A dismissal holds for this member until the open alerts
 * change (alertStateKey), so a new failure is never hidden by an old click.
 */
export function AlertNotice({ userId }: { userId: string }) {
  const alerts = useAlerts();
  const pathname = usePathname();
  // null until read from storage after mount: the first paint never flashes a dismissed notice.
  const [dismissed, setDismissed] = useState<string | null | undefined>(undefined);
  useEffect(() => setDismissed(readDismissed(userId)), [userId]);
  const open = alerts.data?.open ?? [];
  const key = alertStateKey(open);
  if (open.length === 0 || dismissed === undefined || dismissed === key || pathname === "/overview") return null;
  const disabled = open.some((a) => a.disabledAt);
  const dismiss = () => {
    try {
      window.localStorage.setItem(dismissalStorageKey(userId), key);
    } catch {
      // Storage refused (private mode): the dismissal holds for this page view only.
    }
    setDismissed(key);
    document.getElementById("main")?.focus();
  };
  return (
    <section
      aria-label="Endpoint alert notice"
      data-testid="alert-notice"
      className={`mb-4 flex min-w-0 items-center gap-2 rounded-md px-3 py-1.5 text-sm ring-1 ${disabled ? "bg-red-50 text-red-900 ring-red-200" : "bg-amber-50 text-amber-900 ring-amber-200"}`}
    >
      <span aria-hidden>⚠</span>
      <p className="min-w-0 flex-1 truncate">
        {alertSummary(open)}
        {" · "}
        <Link href="/overview#alerts" className="font-semibold underline">
          See alerts
        </Link>
      </p>
      <button
        type="button"
        onClick={dismiss}
        className="shrink-0 rounded px-1.5 py-0.5 text-xs font-medium underline hover:bg-black/5"
        aria-label="Dismiss the alert notice"
      >
        Dismiss
      </button>
    </section>
  );
}
