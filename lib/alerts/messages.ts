import "server-only";

/** What happened to a destination URL, as the banner, the email and the Slack message tell it (docs/alerts.md#notices). */
export type AlertEvent = {
  kind: "opened" | "recovered" | "disabled";
  workspaceId: string;
  destinationId: string;
  destinationName: string;
  url: string;
  reason: "failing" | "success_rate" | "certificate";
  failingSince: Date | null;
  /** a "certificate" event: the client certificate's subject and end */
  certificate?: { subject: string; expiresAt: Date };
  successRate: number | null;
  lastError: string | null;
  now: Date;
};

const minutesBetween = (from: Date, to: Date) => Math.max(0, Math.round((to.getTime() - from.getTime()) / 60_000));

export function describeDuration(minutes: number): string {
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} hours`;
  return `${Math.round(minutes / (24 * 60))} days`;
}

function problem(e: AlertEvent): string {
  const detail = e.lastError ? ` (last error: ${e.lastError})` : "";
  if (e.reason === "success_rate" && e.successRate !== null) {
    return `succeeded for only ${Math.round(e.successRate * 100)}% of attempts over the last hour${detail}`;
  }
  const since = e.failingSince ? ` for ${describeDuration(minutesBetween(e.failingSince, e.now))}` : "";
  return `has been failing with no success${since}${detail}`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** "expires on 2026-12-20 (in 13 days)", "expired on 2026-12-01": when a client certificate ends, from `now`. */
export function certificateEnd(expiresAt: Date, now: Date): string {
  const ms = expiresAt.getTime() - now.getTime();
  if (ms <= 0) return `expired on ${day(expiresAt)}`;
  const days = Math.floor(ms / 86_400_000);
  return `expires on ${day(expiresAt)} (${days === 0 ? "within a day" : `in ${days} day${days === 1 ? "" : "s"}`})`;
}

/** Subject and plain text of a notice; `link` is the destination's page in the dashboard when the public URL is known. */
export function alertNotice(e: AlertEvent, link: string | null): { subject: string; text: string } {
  const where = `destination "${e.destinationName}" at ${e.url}`;
  const more = link ? `\n${link}` : "";
  if (e.reason === "certificate" && e.certificate) {
    const cert = `the client certificate ${e.certificate.subject}`;
    return e.kind === "recovered"
      ? {
          subject: `Client certificate replaced: ${e.destinationName}`,
          text: `Eventrail: destination "${e.destinationName}" has a new client certificate: ${e.certificate.subject}, which ${certificateEnd(e.certificate.expiresAt, e.now)}.${more}`,
        }
      : {
          subject: `Client certificate expiring: ${e.destinationName}`,
          text: `Eventrail: ${where} sends ${cert}, which ${certificateEnd(e.certificate.expiresAt, e.now)}; its endpoint will refuse deliveries once it has ended. Replace it in the destination's Mutual TLS section.${more}`,
        };
  }
  switch (e.kind) {
    case "opened":
      return { subject: `Endpoint failing: ${e.destinationName}`, text: `Eventrail: ${where} ${problem(e)}.${more}` };
    case "recovered":
      return {
        subject: `Endpoint recovered: ${e.destinationName}`,
        text: `Eventrail: ${where} has recovered: deliveries succeed again.${more}`,
      };
    case "disabled":
      return {
        subject: `Endpoint disabled: ${e.destinationName}`,
        text: `Eventrail: ${where} ${problem(e)}, so it was disabled: it gets no deliveries until it is re-enabled in the dashboard.${more}`,
      };
  }
}

/**
 * A notice's text for a Slack-compatible notification URL: `&`, `<` and `>` escaped as Slack's
 * message format asks (docs/alerts.md#notices), so that nothing a destination's name, URL or an
 * endpoint's error holds can mention `<!channel>` or `<@user>`, or show a link under other words
 * (`<https://elsewhere|Re-enable here>`). Email gets the text as it is: plain text is not parsed.
 */
export function slackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
