"use client";

import Link from "next/link";
import type { AuditEventDto } from "@/lib/audit/contract";
import { useDestinations } from "@/components/destinations/hooks";
import { useSources } from "@/components/sources/hooks";
import { useAudiences } from "@/components/audiences/hooks";

const PAGES = { destination: "/destinations", source: "/sources", audience: "/audiences", capture_bin: "/capture" } as const;

/**
 * Which resource a change touched: a destination, source or audience by its name now (a link to
 * it), or, once deleted, its kind and the start of its id; other resources by kind.
 */
export function ResourceName({ event }: { event: Pick<AuditEventDto, "resourceType" | "resourceId" | "changes"> }) {
  const destinations = useDestinations();
  const sources = useSources();
  const audiences = useAudiences();
  const { resourceType: type, resourceId: id } = event;
  if (!id) return null;
  const lists: Record<string, { id: string; name: string }[] | undefined> = {
    destination: destinations.data,
    source: sources.data,
    audience: audiences.data,
  };
  const current = lists[type]?.find((r) => r.id === id);
  const kind = type.replace("_", " ");
  if (current && type in PAGES) {
    return (
      <span className="text-slate-700">
        {kind}{" "}
        <Link href={`${PAGES[type as keyof typeof PAGES]}/${id}`} className="font-medium text-indigo-700 underline">
          <bdi>{current.name}</bdi>
        </Link>
      </span>
    );
  }
  // Gone now: the name it had, when the change recorded one, else the id.
  const named = event.changes?.name?.before ?? event.changes?.name?.after;
  const label = typeof named === "string" ? named : `${id.slice(0, 8)}…`;
  return (
    <span className="text-slate-700">
      {kind} <bdi className="font-medium">{label}</bdi>
      {lists[type] ? <span className="text-slate-500"> (deleted)</span> : null}
    </span>
  );
}
