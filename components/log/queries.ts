import type { AttemptDetailDto, AttemptDto } from "@/lib/delivery/attempt-schemas";
import type { MessageDetailDto } from "@/lib/delivery/messages";
import { api } from "@/lib/client/api";

/** Filters of the request log, as they sit in the URL query string and in GET /api/attempts. */
export const FILTER_KEYS = ["destinationId", "outcome", "statusClass", "type", "userId", "messageId", "url", "from", "to"] as const;
export type LogFilter = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** Only the filters that are set, in a fixed order, so equal filters share one cache entry. */
export function normaliseFilter(f: LogFilter): LogFilter {
  const out: LogFilter = {};
  for (const k of FILTER_KEYS) if (f[k]) out[k] = f[k];
  return out;
}

export const logKeys = {
  all: ["attempts"] as const,
  list: (filter: LogFilter) => [...logKeys.all, "list", normaliseFilter(filter)] as const,
  detail: (id: string) => [...logKeys.all, "detail", id] as const,
  message: (messageRowId: string) => ["messages", "detail", messageRowId] as const,
  replayCount: (filter: LogFilter) => ["messages", "replay-count", normaliseFilter(filter)] as const,
};

export type AttemptPage = { attempts: AttemptDto[]; nextCursor: string | null };

export function fetchAttempts(filter: LogFilter, cursor: string | null, signal?: AbortSignal, limit = 50) {
  const q = new URLSearchParams(normaliseFilter(filter) as Record<string, string>);
  if (cursor) q.set("cursor", cursor);
  q.set("limit", String(limit));
  return api<AttemptPage>(`/api/attempts?${q}`, { signal });
}

export const fetchAttempt = (id: string, signal?: AbortSignal) => api<AttemptDetailDto>(`/api/attempts/${id}`, { signal });

export const fetchMessage = (id: string, signal?: AbortSignal) => api<MessageDetailDto>(`/api/messages/${id}`, { signal });
