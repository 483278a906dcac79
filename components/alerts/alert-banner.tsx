"use client";

import Link from "next/link";
import type { EndpointAlertDto } from "@/lib/alerts/contract";
import { Button } from "@/components/ui/button";
import { TimeAgo } from "@/components/ui/format";
import { useAlerts, useEnableUrlMutation } from "./hooks";

/** What is wrong, in the words of docs/alerts.md#notices. */
function problem(a: EndpointAlertDto): string {
  const error = a.lastError ? ` (last error: ${a.lastError})` : "";
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
        <bdi className="font-mono text-xs">{alert.url}</bdi> {problem(alert)}
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
 * The dashboard's endpoint alert banner (docs/alerts.md#notices): every open alert of the workspace,
 * above every page, with a one-click re-enable for URLs the alerts disabled.
 */
export function AlertBanner() {
  const alerts = useAlerts();
  const open = alerts.data?.open ?? [];
  if (open.length === 0) return null;
  const disabled = open.some((a) => a.disabledAt);
  return (
    <section
      aria-label="Endpoint alerts"
      data-testid="alert-banner"
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
