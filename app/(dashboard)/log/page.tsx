import type { Metadata } from "next";
import { readLogUrl } from "@/components/log/hooks";
import { RequestLog } from "@/components/log/request-log";
import { pageData } from "../page-data";
import { Prefetched } from "../prefetch";

export const metadata: Metadata = { title: "Request log" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * No Suspense boundary around the log: the page is rendered per request (it reads its query string),
 * so useSearchParams does not suspend, and a boundary would send its rows after the first HTML.
 */
export default async function LogPage({ searchParams }: Props) {
  // Read as the page's useSearchParams reads it (a repeated key counts once, its first value).
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of [v ?? []].flat()) params.append(k, one);
  const { filter, view } = readLogUrl(params);
  return (
    <Prefetched queries={[pageData.logFirstPage(filter, view), pageData.destinations]}>
      <RequestLog />
    </Prefetched>
  );
}
