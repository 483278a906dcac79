import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { webhookUrlSchema } from "../destinations/contract";

/**
 * Endpoint alerts (docs/alerts.md): a destination URL that keeps failing is reported to the
 * workspace (dashboard banner, email to admins, a Slack-compatible POST), reported again when it
 * recovers, and disabled after days of continuous failure until someone re-enables it.
 */

export const ALERT_DEFAULTS = { failingMinutes: 15, successRatePercent: 50, disableAfterDays: 5, emailAdmins: true } as const;

export const alertSettingsDtoSchema = z.object({
  failingMinutes: z.number().int(),
  successRatePercent: z.number().int(),
  disableAfterDays: z.number().int(),
  emailAdmins: z.boolean(),
  /** The notification URL is write-only (it holds the Slack token): whether it is set, and its host. */
  notifyUrlSet: z.boolean(),
  notifyUrlHost: z.string().nullable(),
  /** Whether this install can send email at all (SMTP_URL). */
  smtpConfigured: z.boolean(),
});
export type AlertSettingsDto = z.infer<typeof alertSettingsDtoSchema>;

/** PUT /api/alerts/settings: fields left out stay as they are; notifyUrl null or "" removes it. */
export const alertSettingsPatchSchema = z.object({
  failingMinutes: z
    .number()
    .int("A whole number of minutes")
    .min(1, "At least 1 minute")
    .max(24 * 60, "At most 1440 minutes (a day)")
    .optional(),
  successRatePercent: z.number().int("A whole percentage").min(0, "0 turns the rate alert off").max(100, "At most 100").optional(),
  disableAfterDays: z.number().int("A whole number of days").min(1, "At least 1 day").max(30, "At most 30 days").optional(),
  emailAdmins: z.boolean().optional(),
  notifyUrl: z.union([z.literal("").transform(() => null), z.null(), webhookUrlSchema]).optional(),
});
export type AlertSettingsPatch = z.input<typeof alertSettingsPatchSchema>;

/** Why an alert is open (docs/alerts.md): a URL failing, its success rate, or a client certificate about to end. */
export const ALERT_REASONS = ["failing", "success_rate", "certificate"] as const;

export const endpointAlertDtoSchema = z.object({
  id: z.string(),
  destinationId: z.string(),
  destinationName: z.string(),
  url: z.string(),
  reason: z.enum(ALERT_REASONS),
  openedAt: z.string(),
  failingSince: z.string().nullable(),
  successRate: z.number().nullable(),
  lastError: z.string().nullable(),
  /** Set once the URL was disabled after failing for days; it gets nothing until re-enabled. */
  disabledAt: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  resolution: z.enum(["recovered", "reenabled", "removed"]).nullable(),
  /** A "certificate" alert: the client certificate's subject and end (docs/alerts.md#certificates); null otherwise. */
  certificate: z.object({ subject: z.string(), expiresAt: z.string() }).nullable(),
});
export type EndpointAlertDto = z.infer<typeof endpointAlertDtoSchema>;

export const alertsDtoSchema = z.object({
  open: z.array(endpointAlertDtoSchema),
  /** The last 20 resolved alerts, newest first. */
  recent: z.array(endpointAlertDtoSchema),
});
export type AlertsDto = z.infer<typeof alertsDtoSchema>;

export const enableUrlSchema = z.object({ url: z.string().min(1, "Name the URL to re-enable").max(2048) });
export const enabledUrlDtoSchema = z.object({ destinationId: z.string(), url: z.string(), disabledUrls: z.array(z.string()) });

export const alertEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/alerts",
    access: "viewer",
    summary: "Open endpoint alerts (failing or disabled destination URLs) and the last 20 resolved ones",
    response: alertsDtoSchema,
  }),
  getSettings: endpoint({
    method: "GET",
    path: "/api/alerts/settings",
    access: "viewer",
    summary: "The workspace's alert settings: minutes of failure, success-rate threshold, days before disabling, where to notify",
    response: alertSettingsDtoSchema,
  }),
  updateSettings: endpoint({
    method: "PUT",
    path: "/api/alerts/settings",
    access: "admin",
    summary: 'Change the alert settings; fields left out stay as they are (notifyUrl: null or "" removes it)',
    body: alertSettingsPatchSchema,
    response: alertSettingsDtoSchema,
  }),
  enableUrl: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/enable-url",
    access: "admin",
    summary: "Re-enable a destination URL that alerts disabled after days of failure; its alert is resolved and judged afresh",
    body: enableUrlSchema,
    response: enabledUrlDtoSchema,
  }),
};
