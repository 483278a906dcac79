import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { trackingPlanRoutes } from "@/lib/tracking-plans/routes";
import { useEffect, useState } from "react";
import { call } from "@/components/data/api-client";
import type { BodyInputOf } from "@/lib/api/endpoint";
import type { TrackingPlanDto, TrackingPlanInput, TrackingPlanPatch, trackingPlanEndpoints } from "@/lib/tracking-plans/contract";

type PlanPreviewBody = BodyInputOf<typeof trackingPlanEndpoints.preview>;

/** Tracking plans: keys, fetchers and mutations of /api/tracking-plans (lib/tracking-plans/contract.ts). */
export const trackingPlanKeys = {
  all: ["tracking-plans"] as const,
  list: () => [...trackingPlanKeys.all, "list"] as const,
  detail: (id: string) => [...trackingPlanKeys.all, "detail", id] as const,
  schemaCheck: (text: string) => [...trackingPlanKeys.all, "schema-check", text] as const,
};

export const fetchTrackingPlans = (signal?: AbortSignal) => call(trackingPlanRoutes.list, { signal }).then((r) => r.trackingPlans);
export const fetchTrackingPlan = (id: string, signal?: AbortSignal) => call(trackingPlanRoutes.get, { params: { id }, signal });

export function useTrackingPlans() {
  return useQuery({ queryKey: trackingPlanKeys.list(), queryFn: ({ signal }) => fetchTrackingPlans(signal) });
}

export function useTrackingPlan(id: string) {
  return useQuery({ queryKey: trackingPlanKeys.detail(id), queryFn: ({ signal }) => fetchTrackingPlan(id, signal) });
}

function usePlanChanged() {
  const qc = useQueryClient();
  return (p: TrackingPlanDto) => {
    qc.setQueryData(trackingPlanKeys.detail(p.id), p);
    return qc.invalidateQueries({ queryKey: trackingPlanKeys.list() });
  };
}

export function useCreateTrackingPlanMutation() {
  const changed = usePlanChanged();
  return useMutation({ mutationFn: (body: TrackingPlanInput) => call(trackingPlanRoutes.create, { body }), onSuccess: changed });
}

export function useUpdateTrackingPlanMutation() {
  const changed = usePlanChanged();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: TrackingPlanPatch }) =>
      call(trackingPlanRoutes.update, { params: { id }, body: patch }),
    onSuccess: changed,
  });
}

export function useDeleteTrackingPlanMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(trackingPlanRoutes.remove, { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: trackingPlanKeys.list() }),
  });
}

export function useImportTrackingPlanMutation() {
  const changed = usePlanChanged();
  return useMutation({
    mutationFn: (plan: Record<string, unknown>) => call(trackingPlanRoutes.import, { body: { plan } }),
    onSuccess: changed,
  });
}

export const fetchExport = (id: string) => call(trackingPlanRoutes.export, { params: { id } });

/** How long typing pauses before a schema is checked by the server's compiler. */
const CHECK_DELAY_MS = 400;

/**
 * A schema's text checked as it is typed: JSON first, here; then the server's compiler (the one a
 * plan is saved with, docs/tracking-plans.md#schemas), once typing pauses.
 */
export function useSchemaCheck(text: string): { state: "checking" | "ok" | "invalid"; problem: string | null } {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setSettled(text), CHECK_DELAY_MS);
    return () => clearTimeout(t);
  }, [text]);
  let parsed: unknown;
  let jsonProblem: string | null = null;
  try {
    parsed = JSON.parse(settled);
  } catch (err) {
    jsonProblem = `Not JSON: ${(err as Error).message}`;
  }
  const check = useQuery({
    queryKey: trackingPlanKeys.schemaCheck(settled),
    queryFn: ({ signal }) => call(trackingPlanRoutes.validateSchema, { body: { schema: parsed }, signal }),
    enabled: jsonProblem === null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (jsonProblem) return { state: "invalid", problem: jsonProblem };
  if (settled !== text || !check.data) return { state: "checking", problem: null };
  return check.data.ok ? { state: "ok", problem: null } : { state: "invalid", problem: check.data.problem };
}

export function usePlanViolations(id: string, hours: number) {
  return useQuery({
    queryKey: [...trackingPlanKeys.detail(id), "violations", hours] as const,
    queryFn: ({ signal }) => call(trackingPlanRoutes.violations, { params: { id }, query: { hours }, signal }),
    refetchInterval: 30_000,
  });
}

export function usePlanPreviewMutation() {
  return useMutation({ mutationFn: (body: PlanPreviewBody) => call(trackingPlanRoutes.preview, { body }) });
}
