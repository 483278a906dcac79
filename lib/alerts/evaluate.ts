import "server-only";
import type pg from "pg";
import { JUDGED_ATTEMPT } from "../destinations/endpoint-health";
import { describeError } from "../destinations/health";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";
import { describeCertificate } from "../webhooks/client-tls";
import { ALERT_DEFAULTS } from "./contract";
import { judgeEndpoint, successRateOf, type Judgement, type OpenAlert } from "./judge";
import type { AlertEvent } from "./messages";
import { noticeOptions, sendNotices } from "./notify";

/**
 * The alert evaluation (docs/alerts.md#when), run by the worker every minute: each URL of each
 * enabled destination is judged from the request log since the later of its last re-enable and
 * (disable-after days + 1 hour) ago. The last success comes from the attempts (workspace_id,
 * destination_id, id DESC) index, the failures after it from an id range, the hour's rate from an
 * hour of started_at: a healthy URL costs little; a URL failing since the window began costs a scan
 * of the window's ids (measured: npm run bench:alerts). Test-sends' attempts are left out (JUDGED_ATTEMPT).
 */
export const URL_STATS = `
SELECT d.id AS destination_id, d.workspace_id, d.name, u.url,
       u.url = ANY(coalesce(d.disabled_urls, '{}')) AS disabled,
       coalesce(st.failing_minutes, ${ALERT_DEFAULTS.failingMinutes}) AS failing_minutes,
       coalesce(st.success_rate_percent, ${ALERT_DEFAULTS.successRatePercent}) AS success_rate_percent,
       coalesce(st.disable_after_days, ${ALERT_DEFAULTS.disableAfterDays}) AS disable_after_days,
       f.failing_since, h.attempts AS hour_attempts, h.successes AS hour_successes,
       le.error_kind, le.error_text, le.response_status,
       oa.id AS open_id, oa.reason AS open_reason, oa.disabled_at AS open_disabled_at
  FROM destinations d
  CROSS JOIN LATERAL unnest(d.urls) AS u(url)
  LEFT JOIN alert_settings st ON st.workspace_id = d.workspace_id
  CROSS JOIN LATERAL (
    SELECT greatest($1::timestamptz - make_interval(days => coalesce(st.disable_after_days, ${ALERT_DEFAULTS.disableAfterDays}), hours => 1),
                    (SELECT max(ea.reenabled_at) FROM endpoint_alerts ea WHERE ea.destination_id = d.id AND ea.url = u.url)) AS since
  ) w
  -- The first attempt id of the window (ids grow with time, give or take an attempt's seconds): the
  -- lower bound of the failure scan below when the URL had no success in the window.
  CROSS JOIN LATERAL (
    SELECT coalesce((SELECT a.id FROM attempts a WHERE a.started_at > w.since ORDER BY a.started_at LIMIT 1), 0) AS first_id
  ) wi
  -- The URL's last success (newest first on the destination's id-ordered index). started_at is
  -- compared as an expression so the planner walks that index instead of bitmap-scanning the whole
  -- window's started_at range for every URL (npm run bench:alerts).
  LEFT JOIN LATERAL (
    SELECT a.id, a.started_at FROM attempts a
     WHERE a.workspace_id = d.workspace_id AND a.destination_id = d.id AND a.url = u.url AND a.outcome = 'success'
       AND a.started_at + interval '0 s' > w.since AND a.started_at + interval '0 s' <= $1 AND ${JUDGED_ATTEMPT}
     ORDER BY a.id DESC LIMIT 1
  ) ls ON true
  -- Failures after it: an id range of the same index, so a healthy URL costs almost nothing.
  LEFT JOIN LATERAL (
    SELECT min(a.started_at) AS failing_since, (array_agg(a.id ORDER BY a.id DESC))[1] AS last_failure_id FROM attempts a
     WHERE a.workspace_id = d.workspace_id AND a.destination_id = d.id AND a.id > coalesce(ls.id, wi.first_id - 1)
       AND a.url = u.url AND a.outcome <> 'success'
       AND a.started_at + interval '0 s' > w.since AND a.started_at + interval '0 s' <= $1 AND ${JUDGED_ATTEMPT}
  ) f ON true
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS attempts, (count(*) FILTER (WHERE r.outcome = 'success'))::int AS successes FROM (
      SELECT a.outcome FROM attempts a
       WHERE a.workspace_id = d.workspace_id AND a.destination_id = d.id AND a.url = u.url
         AND a.started_at > greatest(w.since, $1::timestamptz - interval '1 hour') AND a.started_at <= $1 AND ${JUDGED_ATTEMPT}
       ORDER BY a.id DESC LIMIT ${1000}
    ) r
  ) h ON true
  LEFT JOIN attempts le ON le.id = f.last_failure_id
  LEFT JOIN LATERAL (
    SELECT ea.id, ea.reason, ea.disabled_at FROM endpoint_alerts ea
     WHERE ea.destination_id = d.id AND ea.url = u.url AND ea.resolved_at IS NULL AND ea.reason <> 'certificate'
     ORDER BY ea.opened_at DESC LIMIT 1
  ) oa ON true
 WHERE d.enabled AND ($2::uuid IS NULL OR d.workspace_id = $2) AND ($3::uuid[] IS NULL OR d.id = ANY($3))`;

type Row = {
  destination_id: string;
  workspace_id: string;
  name: string;
  url: string;
  disabled: boolean;
  failing_minutes: number;
  success_rate_percent: number;
  disable_after_days: number;
  failing_since: Date | null;
  hour_attempts: number;
  hour_successes: number;
  error_kind: string | null;
  error_text: string | null;
  response_status: number | null;
  open_id: string | null;
  open_reason: "failing" | "success_rate" | null;
  open_disabled_at: Date | null;
};

/**
 * Alerts whose URL is gone from its destination, or whose destination was disabled by a person, or a
 * certificate alert whose destination no longer sends a client certificate: resolved, silently. (A
 * certificate alert names the destination's first URL only to be shown; the URL may change.)
 */
const RESOLVE_ORPHANS = `
UPDATE endpoint_alerts ea SET resolved_at = $1, resolution = 'removed'
  FROM destinations d
 WHERE ea.destination_id = d.id AND ea.resolved_at IS NULL AND ($2::uuid IS NULL OR ea.workspace_id = $2)
   AND (NOT d.enabled
        OR (ea.reason <> 'certificate' AND NOT (ea.url = ANY(d.urls)))
        OR (ea.reason = 'certificate' AND d.tls IS NULL))`;

/** A client certificate that ends within this many days raises its destination's alert (docs/alerts.md#certificates). */
export const CERTIFICATE_NOTICE_DAYS = 14;

/** Enabled destinations that send a client certificate, with their open certificate alert if any. */
const CERTIFICATES = `
SELECT d.id AS destination_id, d.workspace_id, d.name, d.urls[1] AS url, d.tls->>'clientCert' AS cert,
       oa.id AS open_id, oa.cert_expires_at AS open_expires_at
  FROM destinations d
  LEFT JOIN LATERAL (
    SELECT ea.id, ea.cert_expires_at FROM endpoint_alerts ea
     WHERE ea.destination_id = d.id AND ea.reason = 'certificate' AND ea.resolved_at IS NULL
     ORDER BY ea.opened_at DESC LIMIT 1
  ) oa ON true
 WHERE d.enabled AND d.tls IS NOT NULL AND ($1::uuid IS NULL OR d.workspace_id = $1) AND ($2::uuid[] IS NULL OR d.id = ANY($2))`;

type CertificateRow = {
  destination_id: string;
  workspace_id: string;
  name: string;
  url: string | null;
  cert: string | null;
  open_id: string | null;
  open_expires_at: Date | null;
};

/**
 * Each client certificate's end against `now`: one that ends within CERTIFICATE_NOTICE_DAYS (or has
 * ended) opens its destination's certificate alert once; a replacement that ends later resolves it
 * ("recovered", with a notice). Few destinations have one, and each costs a PEM parse.
 */
async function evaluateCertificates(
  c: pg.PoolClient,
  now: Date,
  opts: { workspaceId?: string; destinationIds?: string[] },
): Promise<AlertEvent[]> {
  const { rows } = await c.query<CertificateRow>(CERTIFICATES, [opts.workspaceId ?? null, opts.destinationIds ?? null]);
  const events: AlertEvent[] = [];
  for (const r of rows) {
    const described = r.cert ? describeCertificate(r.cert) : null;
    if (!described) continue;
    const expiresAt = new Date(described.expiresAt);
    const ending = expiresAt.getTime() - now.getTime() < CERTIFICATE_NOTICE_DAYS * 86_400_000;
    const event = (kind: AlertEvent["kind"]): AlertEvent => ({
      kind,
      workspaceId: r.workspace_id,
      destinationId: r.destination_id,
      destinationName: r.name,
      url: r.url ?? "",
      reason: "certificate",
      failingSince: null,
      successRate: null,
      lastError: null,
      certificate: { subject: described.subject, expiresAt },
      now,
    });
    if (ending && !r.open_id) {
      await c.query(
        `INSERT INTO endpoint_alerts (id, workspace_id, destination_id, url, reason, opened_at, cert_expires_at, cert_subject)
         VALUES (gen_random_uuid(), $1, $2, $3, 'certificate', $4, $5, $6)`,
        [r.workspace_id, r.destination_id, r.url ?? "", now, expiresAt, described.subject],
      );
      events.push(event("opened"));
    } else if (ending && r.open_expires_at?.getTime() !== expiresAt.getTime()) {
      // Replaced by another that ends soon too: the alert shows the new one, without a second notice.
      await c.query(`UPDATE endpoint_alerts SET cert_expires_at = $2, cert_subject = $3 WHERE id = $1`, [
        r.open_id,
        expiresAt,
        described.subject,
      ]);
    } else if (!ending && r.open_id) {
      await c.query(`UPDATE endpoint_alerts SET resolved_at = $2, resolution = 'recovered' WHERE id = $1`, [r.open_id, now]);
      events.push(event("recovered"));
    }
  }
  return events;
}

async function apply(c: pg.PoolClient, r: Row, j: Judgement, now: Date): Promise<AlertEvent | null> {
  const lastError =
    r.error_kind || r.response_status !== null
      ? describeError({
          outcome: "failed",
          startedAt: "",
          errorKind: r.error_kind,
          errorText: r.error_text,
          responseStatus: r.response_status,
        })
      : null;
  const successRate = successRateOf({ failingSince: r.failing_since, hourAttempts: r.hour_attempts, hourSuccesses: r.hour_successes });
  const event = (kind: AlertEvent["kind"], reason: AlertEvent["reason"]): AlertEvent => ({
    kind,
    workspaceId: r.workspace_id,
    destinationId: r.destination_id,
    destinationName: r.name,
    url: r.url,
    reason,
    failingSince: r.failing_since,
    successRate,
    lastError,
    now,
  });
  const disableUrl = () =>
    c.query(
      `UPDATE destinations SET disabled_urls = array_append(array_remove(coalesce(disabled_urls, '{}'), $2), $2), updated_at = $3 WHERE id = $1`,
      [r.destination_id, r.url, now],
    );
  switch (j.action) {
    case "none":
      if (r.open_id && !r.disabled) {
        await c.query(
          `UPDATE endpoint_alerts SET failing_since = $2, success_rate = $3, last_error = coalesce($4, last_error) WHERE id = $1`,
          [r.open_id, r.failing_since, successRate, lastError],
        );
      }
      return null;
    case "open":
      await c.query(
        `INSERT INTO endpoint_alerts (id, workspace_id, destination_id, url, reason, opened_at, failing_since, success_rate, last_error, disabled_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [r.workspace_id, r.destination_id, r.url, j.reason, now, r.failing_since, successRate, lastError, j.disable ? now : null],
      );
      if (j.disable) await disableUrl();
      return event(j.disable ? "disabled" : "opened", j.reason);
    case "disable":
      await c.query(
        `UPDATE endpoint_alerts SET disabled_at = $2, failing_since = $3, last_error = coalesce($4, last_error) WHERE id = $1`,
        [r.open_id, now, r.failing_since, lastError],
      );
      await disableUrl();
      return event("disabled", r.open_reason!);
    case "resolve":
      await c.query(`UPDATE endpoint_alerts SET resolved_at = $2, resolution = 'recovered', success_rate = $3 WHERE id = $1`, [
        r.open_id,
        now,
        successRate,
      ]);
      return event("recovered", r.open_reason!);
  }
}

/** Serialises evaluations (two workers, or a test and the worker's cron): one at a time opens and resolves alerts. */
const LOCK_KEY = 0x6576_616c; // "eval"

/**
 * Judges every URL at `now` (injectable: tests stand minutes or days after real failures), records
 * what changed, then sends the notices. `workspaceId` and `destinationIds` limit it (tests).
 */
export async function evaluateEndpointAlerts(
  opts: { now?: Date; workspaceId?: string; destinationIds?: string[]; smtpUrl?: string | null } = {},
): Promise<{ evaluated: number; events: AlertEvent[] }> {
  const now = opts.now ?? new Date();
  const c = await pool().connect();
  let events: AlertEvent[] = [];
  let evaluated = 0;
  try {
    await c.query("BEGIN");
    await c.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    // The statistics query's estimated cost crosses Postgres's JIT threshold, and compiling it costs
    // seconds where running it costs milliseconds (measured: npm run bench:alerts).
    await c.query("SET LOCAL jit = off");
    await c.query(RESOLVE_ORPHANS, [now, opts.workspaceId ?? null]);
    const { rows } = await c.query<Row>(URL_STATS, [now, opts.workspaceId ?? null, opts.destinationIds ?? null]);
    evaluated = rows.length;
    const changed: (AlertEvent | null)[] = [];
    for (const r of rows) {
      const open: OpenAlert | null = r.open_id ? { reason: r.open_reason!, disabledAt: r.open_disabled_at } : null;
      const judgement = judgeEndpoint({
        now,
        stats: { failingSince: r.failing_since, hourAttempts: r.hour_attempts, hourSuccesses: r.hour_successes },
        thresholds: {
          failingMinutes: r.failing_minutes,
          successRatePercent: r.success_rate_percent,
          disableAfterDays: r.disable_after_days,
        },
        open,
        disabled: r.disabled,
      });
      changed.push(await apply(c, r, judgement, now));
    }
    changed.push(...(await evaluateCertificates(c, now, opts)));
    await c.query("COMMIT");
    events = changed.filter((e): e is AlertEvent => e !== null);
  } catch (err) {
    await c.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    c.release();
  }
  if (events.length > 0) {
    logger().info({ opened: events.filter((e) => e.kind === "opened").length, events: events.length }, "endpoint alerts changed");
    await sendNotices(events, noticeOptions(opts.smtpUrl));
  }
  return { evaluated, events };
}
