import { prisma } from "../db";
import { AppError, notFound } from "../errors";
import { generateStandardSecret } from "../webhooks/signing";
import type { DestinationDto, DestinationInput, DestinationPatch } from "./schemas";

const select = {
  id: true,
  name: true,
  urls: true,
  headers: true,
  sharedSecret: true,
  standardWebhooks: true,
  standardSecret: true,
  enabled: true,
  mode: true,
  retryWindowMinutes: true,
  createdAt: true,
  updatedAt: true,
  sources: { select: { sourceId: true } },
} as const;

type Row = {
  id: string;
  name: string;
  urls: string[];
  headers: unknown;
  sharedSecret: string | null;
  standardWebhooks: boolean;
  standardSecret: string | null;
  enabled: boolean;
  mode: string;
  retryWindowMinutes: number;
  createdAt: Date;
  updatedAt: Date;
  sources: { sourceId: string }[];
};

const toDto = (r: Row): DestinationDto => ({
  id: r.id,
  name: r.name,
  urls: r.urls,
  headers: Array.isArray(r.headers) ? (r.headers as DestinationDto["headers"]) : [],
  sharedSecret: r.sharedSecret,
  standardWebhooks: r.standardWebhooks,
  standardSecret: r.standardSecret,
  enabled: r.enabled,
  mode: r.mode === "every" ? "every" : "any",
  retryWindowMinutes: r.retryWindowMinutes,
  sourceIds: r.sources.map((s) => s.sourceId),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** Connected sources must be the workspace's own: otherwise a 422 on the offending entries, nothing saved. */
async function checkSources(workspaceId: string, sourceIds: string[]): Promise<void> {
  if (sourceIds.length === 0) return;
  const found = await prisma().source.findMany({ where: { workspaceId, id: { in: sourceIds } }, select: { id: true } });
  const ok = new Set(found.map((s) => s.id));
  const fields: Record<string, string[]> = {};
  sourceIds.forEach((id, i) => {
    if (!ok.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);
}

/** Standard Webhooks needs a secret: one is generated when signing is switched on without one. */
const standardSecretFor = (enabled: boolean, given: string | null | undefined, current: string | null) =>
  given ? given : given === null ? (enabled ? generateStandardSecret() : null) : (current ?? (enabled ? generateStandardSecret() : null));

export async function listDestinations(opts: { workspaceId: string }): Promise<DestinationDto[]> {
  const rows = await prisma().destination.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "asc" }, select });
  return rows.map(toDto);
}

export async function getDestination(opts: { workspaceId: string; id: string }): Promise<DestinationDto> {
  const row = await prisma()
    .destination.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select })
    .catch(() => null);
  if (!row) throw notFound("Destination");
  return toDto(row);
}

export async function createDestination(opts: { workspaceId: string; input: DestinationInput }): Promise<DestinationDto> {
  const { input } = opts;
  await checkSources(opts.workspaceId, input.sourceIds);
  const row = await prisma().destination.create({
    data: {
      workspaceId: opts.workspaceId,
      name: input.name,
      urls: input.urls,
      headers: input.headers,
      sharedSecret: input.sharedSecret ?? null,
      standardWebhooks: input.standardWebhooks,
      standardSecret: standardSecretFor(input.standardWebhooks, input.standardSecret, null),
      enabled: input.enabled,
      mode: input.mode,
      retryWindowMinutes: input.retryWindowMinutes,
      sources: { create: input.sourceIds.map((sourceId) => ({ sourceId })) },
    },
    select,
  });
  return toDto(row);
}

export async function updateDestination(opts: { workspaceId: string; id: string; input: DestinationPatch }): Promise<DestinationDto> {
  const current = await getDestination(opts);
  const { input } = opts;
  if (input.sourceIds) await checkSources(opts.workspaceId, input.sourceIds);
  const standardWebhooks = input.standardWebhooks ?? current.standardWebhooks;
  const row = await prisma().destination.update({
    where: { id: opts.id },
    data: {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.urls !== undefined && { urls: input.urls }),
      ...(input.headers !== undefined && { headers: input.headers }),
      ...(input.sharedSecret !== undefined && { sharedSecret: input.sharedSecret }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      ...(input.mode !== undefined && { mode: input.mode }),
      ...(input.retryWindowMinutes !== undefined && { retryWindowMinutes: input.retryWindowMinutes }),
      standardWebhooks,
      standardSecret: standardSecretFor(standardWebhooks, input.standardSecret, current.standardSecret),
      ...(input.sourceIds !== undefined && {
        sources: { deleteMany: {}, create: input.sourceIds.map((sourceId) => ({ sourceId })) },
      }),
    },
    select,
  });
  return toDto(row);
}

/** Deleting a destination removes its pending deliveries (cascade); the attempt log keeps its history. */
export async function deleteDestination(opts: { workspaceId: string; id: string }): Promise<void> {
  await getDestination(opts);
  await prisma().destination.delete({ where: { id: opts.id } });
}
