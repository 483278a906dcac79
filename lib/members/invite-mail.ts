import "server-only";
import { env } from "../platform/env";
import { logger } from "../platform/logger";

/**
 * Emails an invite link when SMTP_URL is set (docs/management-api.md#invitations); false when it is
 * not, or the mail server refused (logged without the link: it is a credential until used).
 */
export async function sendInvitationEmail(opts: {
  to: string;
  url: string;
  workspaceName: string;
  role: string;
  expiresAt: Date;
}): Promise<boolean> {
  const { SMTP_URL, SMTP_FROM } = env();
  if (!SMTP_URL) return false;
  // Loaded when there is mail to send (docs/operations.md#footprint).
  const transport = (await import("nodemailer")).default.createTransport(SMTP_URL);
  try {
    await transport.sendMail({
      from: SMTP_FROM,
      to: opts.to,
      subject: `You are invited to ${opts.workspaceName} on Eventrail`,
      text: [
        `You are invited to the Eventrail workspace "${opts.workspaceName}" as ${opts.role}.`,
        "",
        `Open this link to join (it works once, until ${opts.expiresAt.toUTCString()}):`,
        opts.url,
      ].join("\n"),
    });
    return true;
  } catch (err) {
    logger().warn({ err: (err as Error).message }, "invitation email not sent");
    return false;
  } finally {
    transport.close();
  }
}
