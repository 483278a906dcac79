import "server-only";
import { backfillKeys, fetchBackfills } from "@/components/backfills/hooks";
import { captureKeys, fetchCaptureBin, fetchCaptureBins, fetchCapturedRequests } from "@/components/capture/hooks";
import { destinationKeys, fetchDestination, fetchDestinationHealth, fetchDestinations } from "@/components/destinations/hooks";
import { attemptsQuery, deliveriesQuery, fetchAttempts, fetchDeliveries, type LogFilter, logKeys } from "@/components/log/hooks";
import { fetchPerDestinationStats24h, statsByDestination, statsKeys } from "@/components/overview/hooks";
import { fetchSources, sourceKeys } from "@/components/sources/hooks";
import { listBackfills } from "@/lib/backfills/backfills";
import { backfillEndpoints } from "@/lib/backfills/contract";
import { getCaptureBin, listCaptureBins, publicBase } from "@/lib/capture/bins";
import { captureEndpoints } from "@/lib/capture/contract";
import { listCapturedRequests } from "@/lib/capture/requests";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { getDestination, listDestinations } from "@/lib/destinations/destinations";
import { getDestinationHealth } from "@/lib/destinations/endpoint-health";
import { listAttempts } from "@/lib/request-log/attempts";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { listDeliveries } from "@/lib/request-log/deliveries";
import { getDestinationStats } from "@/lib/request-log/stats";
import { sourceEndpoints } from "@/lib/sources/contract";
import { listSources } from "@/lib/sources/sources";
import { pageQuery } from "./prefetch";

/**
 * The dashboard pages' first data (app/(dashboard)/prefetch.tsx): each entry is one of the browser's
 * calls, under its hook's key, answered by the lib/ function its route handler (app/api/…) calls.
 */
export const pageData = {
  destinations: pageQuery(fetchDestinations, {
    endpoint: destinationEndpoints.list,
    queryKey: destinationKeys.list(),
    load: ({ workspaceId }) => listDestinations({ workspaceId }),
  }),
  destination: (id: string) =>
    pageQuery(fetchDestination, {
      endpoint: destinationEndpoints.get,
      queryKey: destinationKeys.detail(id),
      load: ({ workspaceId }) => getDestination({ workspaceId, id }),
    }),
  destinationHealth: (id: string) =>
    pageQuery(fetchDestinationHealth, {
      endpoint: destinationEndpoints.health,
      queryKey: destinationKeys.health(id),
      load: ({ workspaceId }) => getDestinationHealth({ workspaceId, id }),
    }),
  backfills: (destinationId: string) =>
    pageQuery(fetchBackfills, {
      endpoint: backfillEndpoints.list,
      queryKey: backfillKeys.list(destinationId),
      load: ({ workspaceId }) => listBackfills({ workspaceId, destinationId }),
    }),
  /** The destinations' figures over the last 24 h (the list's column, a destination's header). */
  destinationStats24h: pageQuery(fetchPerDestinationStats24h, {
    endpoint: requestLogEndpoints.destinationStats,
    queryKey: statsKeys.perDestination24h(),
    load: async ({ workspaceId, query }) => statsByDestination(await getDestinationStats({ workspaceId, ...query })),
  }),
  sources: pageQuery(fetchSources, {
    endpoint: sourceEndpoints.list,
    queryKey: sourceKeys.list(),
    // The role decides whether write keys are shown, as in GET /api/sources.
    load: ({ workspaceId, role }) => listSources({ workspaceId, role }),
  }),
  /** A destination's ten latest attempts (its page's Recent attempts). */
  recentAttempts: (destinationId: string) =>
    pageQuery(fetchAttempts, {
      endpoint: requestLogEndpoints.attempts,
      queryKey: logKeys.recent(destinationId),
      query: attemptsQuery({ destinationId }, null, 10),
      load: ({ workspaceId, query }) => listAttempts({ workspaceId, query }),
    }),
  /** The log's first page, by message or by attempt, for the filter in its URL. */
  logFirstPage: (filter: LogFilter, view: "messages" | "attempts") =>
    view === "attempts"
      ? pageQuery(fetchAttempts, {
          endpoint: requestLogEndpoints.attempts,
          queryKey: logKeys.list(filter),
          query: attemptsQuery(filter, null),
          infinite: true,
          load: ({ workspaceId, query }) => listAttempts({ workspaceId, query }),
        })
      : pageQuery(fetchDeliveries, {
          endpoint: requestLogEndpoints.deliveries,
          queryKey: logKeys.byMessage(filter),
          query: deliveriesQuery(filter, null),
          infinite: true,
          load: ({ workspaceId, query }) => listDeliveries({ workspaceId, query }),
        }),
  captureBins: pageQuery(fetchCaptureBins, {
    endpoint: captureEndpoints.list,
    queryKey: captureKeys.list(),
    load: ({ workspaceId, req }) => listCaptureBins({ workspaceId, base: publicBase(req) }),
  }),
  captureBin: (id: string) =>
    pageQuery(fetchCaptureBin, {
      endpoint: captureEndpoints.get,
      queryKey: captureKeys.detail(id),
      load: ({ workspaceId, req }) => getCaptureBin({ workspaceId, id, base: publicBase(req) }),
    }),
  /** A capture URL's newest requests (the live poll adds to them in the browser). */
  capturedRequests: (binId: string) =>
    pageQuery(fetchCapturedRequests, {
      endpoint: captureEndpoints.requests,
      queryKey: captureKeys.requests(binId),
      load: ({ workspaceId, query }) => listCapturedRequests({ workspaceId, binId, ...query }),
    }),
};
