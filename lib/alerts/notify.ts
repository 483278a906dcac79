import "server-only";
import { pool } from "../platform/db";
import { env } from "../platform/env";
import { logger } from "../platform/logger";
import { ownOrigins } from "../webhooks/dispatchers";
import { postWebhook } from "../webhooks/post";
import { alertNotice, slackText, type AlertEvent } from "./messages";

/**
 * Tells a workspace what happened to its endpoints (docs/alerts.md#notices): a Slack-compatible POST
 * `{"text": …}` to its notification URL, through the same SSRF-guarded connection pools as webhooks,
 * and an email to its owners and admins when SMTP is configured and the workspace wants email. A
 * notice that cannot be sent is logged (without the URL's path, which holds the Slack token) and not
 * retried: the banner in the dashboard shows the alert whatever happens here.
 */

type Recipients = { notifyUrl: string | null; emails: string[] };

const RECIPIENTS = `
SELECT s.notify_url, coalesce(s.email_admins, true) AS email_admins,
       coalesce(array_agg(u.email ORDER BY u.email) FILTER (WHERE u.email IS NOT NULL), '{}') AS emails
  FROM workspaces w
  LEFT JOIN alert_settings s ON s.workspace_id = w.id
  LEFT JOIN memberships m ON m.workspace_id = w.id AND m.role IN ('owner', 'admin')
  LEFT JOIN users u ON u.id = m.user_id
 WHERE w.id = $1
 GROUP BY s.notify_url, s.email_admins`;

async function recipientsOf(workspaceId: string, email: boolean): Promise<Recipients> {
  const { rows } = await pool().query<{ notify_url: string | null; email_admins: boolean; emails: string[] }>(RECIPIENTS, [workspaceId]);
  const r = rows[0];
  return { notifyUrl: r?.notify_url ?? null, emails: email && r?.email_admins ? r.emails : [] };
}

async function postNotice(url: string, text: string, workspaceId: string): Promise<void> {
  const sent = await postWebhook(url, {
    headers: { "content-type": "application/json", "user-agent": "Eventrail-Alerts/1" },
    body: JSON.stringify({ text: slackText(text) }),
  });
  const r = sent.result;
  if (r.kind === "response" && r.status >= 200 && r.status < 300) return;
  logger().warn(
    {
      workspaceId,
      notifyHost: new URL(url).host,
      ...(r.kind === "response" ? { status: r.status } : { errorKind: r.errorKind, err: r.message }),
    },
    "alert notification POST failed",
  );
}

/** A notice for a workspace's alert channels: its subject and plain text, and the dashboard page it links to. */
export type WorkspaceNotice = { workspaceId: string; subject: string; text: string; path: string };

type NoticeOptions = { smtpUrl?: string; from: string; dashboardOrigin: string | null };

/** The server's notice settings; `smtpUrl` given (tests) replaces SMTP_URL, null turns email off. */
export function noticeOptions(smtpUrl?: string | null): NoticeOptions {
  const e = env();
  return {
    smtpUrl: smtpUrl === undefined ? e.SMTP_URL : (smtpUrl ?? undefined),
    from: e.SMTP_FROM,
    dashboardOrigin: e.EVENTRAIL_PUBLIC_URL ? new URL(e.EVENTRAIL_PUBLIC_URL).origin : (ownOrigins()[0] ?? null),
  };
}

/** Endpoint alerts' notices (docs/alerts.md#notices), each linking to its destination's page. */
export function sendNotices(events: AlertEvent[], opts: NoticeOptions) {
  return sendWorkspaceNotices(
    events.map((e) => {
      const link = opts.dashboardOrigin ? `${opts.dashboardOrigin}/destinations/${e.destinationId}` : null;
      return { workspaceId: e.workspaceId, ...alertNotice(e, link), path: "" };
    }),
    { ...opts, dashboardOrigin: null },
  );
}

/**
 * Any notice through a workspace's alert channels: the notification URL and the admins' email. The
 * link (`path` under the dashboard's origin, when known) ends the text.
 */
export async function sendWorkspaceNotices(notices: WorkspaceNotice[], opts: NoticeOptions) {
  if (notices.length === 0) return;
  // Loaded when there is mail to send: most installs have no SMTP_URL, and the worker that runs this
  // stays ~5 MB smaller without it (docs/operations.md#footprint).
  const transport = opts.smtpUrl ? (await import("nodemailer")).default.createTransport(opts.smtpUrl) : null;
  try {
    const byWorkspace = new Map<string, Recipients>();
    for (const e of notices) {
      if (!byWorkspace.has(e.workspaceId)) byWorkspace.set(e.workspaceId, await recipientsOf(e.workspaceId, transport !== null));
    }
    await Promise.all(
      notices.map(async (e) => {
        const to = byWorkspace.get(e.workspaceId)!;
        const notice = {
          subject: e.subject,
          text: opts.dashboardOrigin && e.path ? `${e.text}\n${opts.dashboardOrigin}${e.path}` : e.text,
        };
        const tasks: Promise<unknown>[] = [];
        if (to.notifyUrl) tasks.push(postNotice(to.notifyUrl, notice.text, e.workspaceId));
        if (transport && to.emails.length > 0) {
          tasks.push(
            transport
              .sendMail({ from: opts.from, to: to.emails, subject: `[Eventrail] ${notice.subject}`, text: notice.text })
              .catch((err: Error) => {
                logger().warn({ workspaceId: e.workspaceId, err: err.message }, "alert email failed");
              }),
          );
        }
        await Promise.all(tasks);
      }),
    );
  } finally {
    transport?.close();
  }
}
