import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { alertRoutes } from "@/lib/alerts/routes";
import { call } from "@/components/data/api-client";
import { destinationKeys } from "@/components/destinations/hooks";
import type { AlertSettingsPatch } from "@/lib/alerts/contract";

/** Endpoint alerts (/api/alerts) and their settings (/api/alerts/settings); docs/alerts.md. */
export const alertKeys = {
  all: ["alerts"] as const,
  list: () => [...alertKeys.all, "list"] as const,
  settings: () => [...alertKeys.all, "settings"] as const,
};

/** The worker judges endpoints once a minute; the banner looks again twice as often. */
const REFRESH_MS = 30_000;

export const fetchAlerts = (signal?: AbortSignal) => call(alertRoutes.list, { signal });

export function useAlerts() {
  return useQuery({ queryKey: alertKeys.list(), queryFn: ({ signal }) => fetchAlerts(signal), refetchInterval: REFRESH_MS });
}

export function useAlertSettings() {
  return useQuery({ queryKey: alertKeys.settings(), queryFn: ({ signal }) => call(alertRoutes.getSettings, { signal }) });
}

export function useUpdateAlertSettingsMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: AlertSettingsPatch) => call(alertRoutes.updateSettings, { body }),
    onSuccess: (saved) => qc.setQueryData(alertKeys.settings(), saved),
  });
}

/** Re-enabling changes the destination (its disabled URLs) and the alerts. */
export function useEnableUrlMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { destinationId: string; url: string }) =>
      call(alertRoutes.enableUrl, { params: { id: v.destinationId }, body: { url: v.url } }),
    onSuccess: (_r, v) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: alertKeys.all }),
        qc.invalidateQueries({ queryKey: destinationKeys.health(v.destinationId) }),
      ]),
  });
}
