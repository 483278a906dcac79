import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { requestLogRoutes } from "@/lib/request-log/routes";
import type { z } from "zod";
import type { attemptFilterSchema, deliveryListQuerySchema, ReplayResult } from "@/lib/request-log/contract";
import { call } from "@/components/data/api-client";

/** The request log: attempts (/api/attempts), a message's deliveries and attempts (/api/messages), replay. */

/** Filters of the request log, as they sit in the URL query string and in GET /api/attempts. */
export const FILTER_KEYS = [
  "destinationId",
  "outcome",
  "statusClass",
  "type",
  "event",
  "userId",
  "messageId",
  "url",
  "status",
  "errorKind",
  "q",
  "from",
  "to",
  "backfillId",
  // how a message stands at a destination (the log by message only)
  "state",
] as const;
export type LogFilter = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** Only the filters that are set, in a fixed order, so equal filters share one cache entry. */
export function normaliseFilter(f: LogFilter): LogFilter {
  const out: LogFilter = {};
  for (const k of FILTER_KEYS) if (f[k]) out[k] = f[k];
  return out;
}

/** The log's two views: by message (the default) and every attempt (docs/dashboard.md#the-log-by-message). */
export type LogView = "messages" | "attempts";

/** The filters and the view a log URL's query string holds (the page reads it, and so does its prefetch on the server). */
export function readLogUrl(params: { get(key: string): string | null }): { filter: LogFilter; view: LogView } {
  const f: LogFilter = {};
  for (const k of FILTER_KEYS) f[k] = params.get(k) ?? undefined;
  return { filter: normaliseFilter(f), view: params.get("view") === "attempts" ? "attempts" : "messages" };
}

export const logKeys = {
  all: ["request-log"] as const,
  /** Everything made of attempts: the log's pages, a destination's recent attempts, single attempts. */
  attempts: () => [...logKeys.all, "attempts"] as const,
  list: (filter: LogFilter) => [...logKeys.attempts(), "list", normaliseFilter(filter)] as const,
  recent: (destinationId: string) => [...logKeys.attempts(), "recent", destinationId] as const,
  detail: (id: string) => [...logKeys.attempts(), "detail", id] as const,
  /** The log by message: one row per message and destination. */
  byMessage: (filter: LogFilter) => [...logKeys.messages(), "by-message", normaliseFilter(filter)] as const,
  /** Messages: their delivery states and attempt chains, and how many a replay would send. */
  messages: () => [...logKeys.all, "messages"] as const,
  message: (messageRowId: string) => [...logKeys.messages(), "detail", messageRowId] as const,
  replayCount: (filter: LogFilter) => [...logKeys.messages(), "replay-count", normaliseFilter(filter)] as const,
};

/**
 * The filter as the API takes it. The URL's values are passed on unchecked (a hand-edited URL may hold
 * anything): the API validates them and answers a bad one with a field error, as it always has.
 */
const apiFilter = (filter: LogFilter) => {
  const f = normaliseFilter(filter);
  // A payload search needs an end to its window (docs/dashboard.md#search-inside-payloads): "until now" when none is chosen.
  if (f.q && !f.to) f.to = new Date().toISOString();
  return f as z.input<typeof attemptFilterSchema> & { state?: string };
};
/** The attempt filters alone: GET /api/attempts and a replay's filter know no `state`. */
const attemptFilter = (filter: LogFilter) => {
  const { state: _, ...f } = apiFilter(filter);
  return f;
};

// POST /api/messages/replay answers `{ count }` to a dry run and `{ replayed }` otherwise (replayResultSchema).
function dryRunCount(r: ReplayResult) {
  if ("count" in r) return r;
  throw new Error("The dry run answered without a count");
}
function replayed(r: ReplayResult) {
  if ("replayed" in r) return r;
  throw new Error("The replay answered without the number replayed");
}

/** GET /api/attempts' query for a page of the log (the server's prefetch of the first page asks the same). */
export const attemptsQuery = (filter: LogFilter, cursor: string | null, limit = 50) => ({
  ...attemptFilter(filter),
  cursor: cursor ?? undefined,
  limit,
});

/** GET /api/deliveries' query for a page of the log by message. */
export const deliveriesQuery = (filter: LogFilter, cursor: string | null, limit = 50) => ({
  ...(apiFilter(filter) as z.input<typeof deliveryListQuerySchema>),
  cursor: cursor ?? undefined,
  limit,
});

export function fetchAttempts(filter: LogFilter, cursor: string | null, signal?: AbortSignal, limit = 50) {
  return call(requestLogRoutes.attempts, { query: attemptsQuery(filter, cursor, limit), signal });
}

export function fetchDeliveries(filter: LogFilter, cursor: string | null, signal?: AbortSignal, limit = 50) {
  return call(requestLogRoutes.deliveries, { query: deliveriesQuery(filter, cursor, limit), signal });
}

export const fetchAttempt = (id: string, signal?: AbortSignal) => call(requestLogRoutes.attempt, { params: { id }, signal });

export const fetchMessage = (id: string, signal?: AbortSignal) => call(requestLogRoutes.message, { params: { id }, signal });

/** How many failed deliveries a replay of the filter would send, and how many it leaves alone (a dry run). */
export const fetchReplayCount = (filter: LogFilter, signal?: AbortSignal) =>
  call(requestLogRoutes.replay, { body: { filter: attemptFilter(filter), dryRun: true }, signal }).then(dryRunCount);

/** The log, newest first, a page at a time. */
export function useAttemptLog(filter: LogFilter, { enabled = true }: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: logKeys.list(filter),
    queryFn: ({ pageParam, signal }) => fetchAttempts(filter, pageParam, signal),
    enabled,
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    // Tail the newest page while only it is shown; once the user pages back, the list holds still.
    refetchInterval: (q) => ((q.state.data?.pages.length ?? 0) <= 1 ? 5_000 : false),
  });
}

/** The log by message, newest first, a page at a time; tailed like the flat log. */
export function useMessageLog(filter: LogFilter, { enabled }: { enabled: boolean }) {
  return useInfiniteQuery({
    queryKey: logKeys.byMessage(filter),
    queryFn: ({ pageParam, signal }) => fetchDeliveries(filter, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    enabled,
    refetchInterval: (q) => ((q.state.data?.pages.length ?? 0) <= 1 ? 5_000 : false),
  });
}

/** A destination's ten latest attempts, refreshed while on screen. */
export function useRecentAttempts(destinationId: string) {
  return useQuery({
    queryKey: logKeys.recent(destinationId),
    queryFn: ({ signal }) => fetchAttempts({ destinationId }, null, signal, 10),
    refetchInterval: 5_000,
  });
}

export function useAttempt(id: string) {
  // Moving along a chain (or to a newly arrived attempt) keeps the one shown until the next is loaded,
  // so the drawer's state (a replay's answer) is not lost to a spinner.
  return useQuery({ queryKey: logKeys.detail(id), queryFn: ({ signal }) => fetchAttempt(id, signal), placeholderData: keepPreviousData });
}

export function useMessage(messageRowId: string) {
  return useQuery({
    queryKey: logKeys.message(messageRowId),
    queryFn: ({ signal }) => fetchMessage(messageRowId, signal),
    // While a delivery is still pending its retries keep arriving.
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.state === "pending") ? 2_000 : false),
  });
}

export function useReplayCount(filter: LogFilter, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: logKeys.replayCount(filter),
    queryFn: ({ signal }) => fetchReplayCount(filter, signal),
    enabled,
    staleTime: 0,
  });
}

/**
 * Sends one message again where it did not succeed; with `includeDelivered` (an explicit choice in
 * the dialog) also where it did (docs/webhooks.md#replay).
 */
export function useReplayMessageMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      messageRowId,
      includeDelivered,
      ordered = false,
    }: {
      messageRowId: string;
      includeDelivered: boolean;
      ordered?: boolean;
    }) => call(requestLogRoutes.replay, { body: { ids: [messageRowId], includeDelivered, ordered } }).then(replayed),
    onSuccess: (_, { messageRowId }) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: logKeys.message(messageRowId) }),
        qc.invalidateQueries({ queryKey: [...logKeys.messages(), "by-message"] }),
        qc.invalidateQueries({ queryKey: logKeys.attempts() }),
      ]),
  });
}

/** Replays the failed deliveries with an attempt matching the filter. */
export function useReplayMatchingMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (filter: LogFilter) => call(requestLogRoutes.replay, { body: { filter: attemptFilter(filter) } }).then(replayed),
    // Any attempt list and any message's deliveries may have changed.
    onSuccess: () =>
      Promise.all([qc.invalidateQueries({ queryKey: logKeys.attempts() }), qc.invalidateQueries({ queryKey: logKeys.messages() })]),
  });
}
