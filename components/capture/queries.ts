import type { CaptureBinDto, CapturedRequestDto } from "@/lib/capture/schemas";
import { api } from "@/lib/client/api";

export const captureKeys = {
  all: ["capture-bins"] as const,
  list: () => [...captureKeys.all, "list"] as const,
  detail: (id: string) => [...captureKeys.all, "detail", id] as const,
  requests: (id: string) => [...captureKeys.all, "requests", id] as const,
  /** The live poll for requests newer than `after`. */
  newer: (id: string, after: string | null) => [...captureKeys.all, "requests", id, "after", after] as const,
};

export const fetchCaptureBins = (signal?: AbortSignal) => api<{ bins: CaptureBinDto[] }>("/api/capture-bins", { signal }).then((r) => r.bins);
export const fetchCaptureBin = (id: string, signal?: AbortSignal) => api<CaptureBinDto>(`/api/capture-bins/${id}`, { signal });
export const fetchCapturedRequests = (id: string, after: string | null, signal?: AbortSignal) =>
  api<{ requests: CapturedRequestDto[] }>(`/api/capture-bins/${id}/requests${after ? `?after=${after}` : ""}`, { signal }).then((r) => r.requests);
