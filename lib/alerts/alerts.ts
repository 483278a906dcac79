import "server-only";
import { type Actor, recordAudit } from "../audit/record";
import { prisma } from "../platform/db";
import { env } from "../platform/env";
import { assertUuid, notFound, AppError } from "../platform/errors";
import {
  ALERT_DEFAULTS,
  type AlertSettingsDto,
  type AlertSettingsPatch,
  type AlertsDto,
  type EndpointAlertDto,
  type alertSettingsPatchSchema,
} from "./contract";

/** The Management API's side of endpoint alerts (docs/alerts.md): list them, settings, re-enable a URL. */

const alertSelect = {
  id: true,
  destinationId: true,
  url: true,
  reason: true,
  openedAt: true,
  failingSince: true,
  successRate: true,
  lastError: true,
  disabledAt: true,
  resolvedAt: true,
  resolution: true,
  certExpiresAt: true,
  certSubject: true,
  destination: { select: { name: true } },
} as const;

type AlertRow = {
  id: string;
  destinationId: string;
  url: string;
  reason: string;
  openedAt: Date;
  failingSince: Date | null;
  successRate: number | null;
  lastError: string | null;
  disabledAt: Date | null;
  resolvedAt: Date | null;
  resolution: string | null;
  certExpiresAt: Date | null;
  certSubject: string | null;
  destination: { name: string };
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toDto = (r: AlertRow): EndpointAlertDto => ({
  id: r.id,
  destinationId: r.destinationId,
  destinationName: r.destination.name,
  url: r.url,
  reason: r.reason as EndpointAlertDto["reason"],
  openedAt: r.openedAt.toISOString(),
  failingSince: iso(r.failingSince),
  successRate: r.successRate,
  lastError: r.lastError,
  disabledAt: iso(r.disabledAt),
  resolvedAt: iso(r.resolvedAt),
  certificate: r.certExpiresAt ? { subject: r.certSubject ?? "", expiresAt: r.certExpiresAt.toISOString() } : null,
  resolution: r.resolution as EndpointAlertDto["resolution"],
});

export async function listAlerts(opts: { workspaceId: string }): Promise<AlertsDto> {
  const [open, recent] = await Promise.all([
    prisma().endpointAlert.findMany({
      where: { workspaceId: opts.workspaceId, resolvedAt: null },
      orderBy: { openedAt: "desc" },
      take: 100,
      select: alertSelect,
    }),
    prisma().endpointAlert.findMany({
      where: { workspaceId: opts.workspaceId, resolvedAt: { not: null } },
      orderBy: { openedAt: "desc" },
      take: 20,
      select: alertSelect,
    }),
  ]);
  return { open: open.map(toDto), recent: recent.map(toDto) };
}

const hostOf = (url: string | null) => {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

export async function getAlertSettings(opts: { workspaceId: string }): Promise<AlertSettingsDto> {
  const row = await prisma().alertSettings.findUnique({ where: { workspaceId: opts.workspaceId } });
  const s = row ?? { ...ALERT_DEFAULTS, notifyUrl: null };
  return {
    failingMinutes: s.failingMinutes,
    successRatePercent: s.successRatePercent,
    disableAfterDays: s.disableAfterDays,
    emailAdmins: s.emailAdmins,
    notifyUrlSet: s.notifyUrl !== null,
    notifyUrlHost: hostOf(s.notifyUrl),
    smtpConfigured: env().SMTP_URL !== undefined,
  };
}

type ParsedPatch = ReturnType<typeof alertSettingsPatchSchema.parse>;

export async function updateAlertSettings(opts: {
  workspaceId: string;
  actor: Actor;
  patch: ParsedPatch | AlertSettingsPatch;
}): Promise<AlertSettingsDto> {
  const p = opts.patch as ParsedPatch;
  const data = {
    ...(p.failingMinutes !== undefined ? { failingMinutes: p.failingMinutes } : {}),
    ...(p.successRatePercent !== undefined ? { successRatePercent: p.successRatePercent } : {}),
    ...(p.disableAfterDays !== undefined ? { disableAfterDays: p.disableAfterDays } : {}),
    ...(p.emailAdmins !== undefined ? { emailAdmins: p.emailAdmins } : {}),
    ...(p.notifyUrl !== undefined ? { notifyUrl: p.notifyUrl } : {}),
  };
  await prisma().$transaction(async (tx) => {
    const before = (await tx.alertSettings.findUnique({ where: { workspaceId: opts.workspaceId } })) ?? {
      ...ALERT_DEFAULTS,
      notifyUrl: null,
    };
    const after = await tx.alertSettings.upsert({
      where: { workspaceId: opts.workspaceId },
      create: { workspaceId: opts.workspaceId, ...data },
      update: { ...data, updatedAt: new Date() },
    });
    // The notification URL is write-only (it can carry a token): the audit log says only that it changed.
    const changes: Record<string, { before: unknown; after: unknown }> = {};
    for (const key of ["failingMinutes", "successRatePercent", "disableAfterDays", "emailAdmins"] as const) {
      if (before[key] !== after[key]) changes[key] = { before: before[key], after: after[key] };
    }
    if (before.notifyUrl !== after.notifyUrl) changes.notifyUrl = { before: "changed", after: "changed" };
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "alert_settings.update",
      resourceType: "alert_settings",
      changes,
    });
  });
  return getAlertSettings(opts);
}

/**
 * Re-enables a URL the alerts disabled: it gets deliveries again, its open alert is resolved as
 * re-enabled, and the evaluation judges it only from attempts after now (docs/alerts.md#disabling).
 */
export async function enableDestinationUrl(opts: { workspaceId: string; actor: Actor; id: string; url: string; now?: Date }) {
  assertUuid(opts.id, "Destination");
  const now = opts.now ?? new Date();
  return prisma().$transaction(async (tx) => {
    const d = await tx.destination.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select: { disabledUrls: true } });
    if (!d) throw notFound("Destination");
    if (!d.disabledUrls.includes(opts.url)) {
      throw new AppError("conflict", "This URL is not disabled", { url: ["Not among the destination's disabled URLs"] });
    }
    const updated = await tx.destination.update({
      where: { id: opts.id },
      data: { disabledUrls: d.disabledUrls.filter((u) => u !== opts.url) },
      select: { disabledUrls: true },
    });
    await tx.endpointAlert.updateMany({
      where: { destinationId: opts.id, url: opts.url, resolvedAt: null },
      data: { resolvedAt: now, resolution: "reenabled", reenabledAt: now },
    });
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "destination.enable_url",
      resourceType: "destination",
      resourceId: opts.id,
      changes: { disabledUrls: { before: d.disabledUrls, after: updated.disabledUrls } },
    });
    return { destinationId: opts.id, url: opts.url, disabledUrls: updated.disabledUrls };
  });
}
