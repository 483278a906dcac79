// Invitations (docs/management-api.md#invitations): a single-use link for a role, until it expires;
// joined as a new account, an existing one, or the one logged in; emailed through a real SMTP server
// on 127.0.0.1 when SMTP_URL is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteMember, login, OperatorClient, PASSWORD, sessionOf, setupOwner, type SessionClient } from "./harness/members";
import { startSmtpServer, type SmtpHarness } from "./harness/smtp";
import { startStack, waitFor, type Stack } from "./harness/stack";
import { openDb, type Db } from "./harness/tracking";

let stack: Stack;
let smtp: SmtpHarness;
let db: Db;
let owner: SessionClient;

beforeAll(async () => {
  smtp = await startSmtpServer();
  stack = await startStack({ workers: 0, env: { SMTP_URL: smtp.url, SMTP_FROM: "Eventrail <team@example.com>" } });
  db = openDb(stack.databaseUrl);
  owner = await setupOwner(stack.app.url);
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await smtp?.close();
});

const accept = (body: unknown, cookie?: string) =>
  fetch(`${stack.app.url}/api/invitations/accept`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const tokenOf = (url: string) => url.split("/invite/")[1];

describe("invitations", () => {
  it("emails the link through SMTP when an email is given, and the link works once", async () => {
    const invite = await owner.post("/api/invitations", { role: "admin", email: "new@example.com" });
    expect(invite.emailed).toBe(true);
    const mail = await waitFor(async () => smtp.messages.find((m) => m.to.includes("new@example.com")), { what: "the invitation email" });
    expect(mail.from).toBe("team@example.com");
    expect(mail.raw.replace(/=\r?\n/g, "")).toContain(invite.url);

    const short = await accept({ token: tokenOf(invite.url), email: "new@example.com", password: "short" });
    expect(short.status).toBe(422);
    const joined = await accept({ token: tokenOf(invite.url), email: "new@example.com", password: PASSWORD });
    expect(joined.status).toBe(200);
    expect((await sessionOf(stack.app.url, joined, "new@example.com").get("/api/me")).role).toBe("admin");
    // Single use: the second try is refused, and no second account or membership appears.
    const again = await accept({ token: tokenOf(invite.url), email: "other@example.com", password: PASSWORD });
    expect(again.status).toBe(409);
    expect((await db.query(`SELECT count(*)::int AS n FROM users WHERE email = 'other@example.com'`)).rows[0].n).toBe(0);
  });

  it("joins an existing account only with its password, or the logged-in account as it is", async () => {
    const other = await setupElsewhere();
    const invite = await owner.post("/api/invitations", { role: "viewer" });
    expect(invite.emailed).toBe(false);
    expect((await accept({ token: tokenOf(invite.url), email: other.email, password: "not the password" })).status).toBe(401);
    const viaSession = await accept({ token: tokenOf(invite.url) }, other.cookie);
    expect(viaSession.status).toBe(200);
    const me = await sessionOf(stack.app.url, viaSession, other.email).get("/api/me");
    expect(me).toMatchObject({ role: "viewer", email: other.email });
    expect(me.workspaces).toHaveLength(2);
  });

  it("refuses an expired or withdrawn link", async () => {
    const expired = await owner.post("/api/invitations", { role: "viewer" });
    await db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    expect((await accept({ token: tokenOf(expired.url), email: "late@example.com", password: PASSWORD })).status).toBe(409);
    const withdrawn = await owner.post("/api/invitations", { role: "viewer" });
    await owner.del(`/api/invitations/${withdrawn.id}`);
    expect((await accept({ token: tokenOf(withdrawn.url), email: "late@example.com", password: PASSWORD })).status).toBe(404);
    expect((await db.query(`SELECT count(*)::int AS n FROM users WHERE email = 'late@example.com'`)).rows[0].n).toBe(0);
  });
});

/** An account that belongs to another workspace only: the operator's token invites it there as owner. */
async function setupElsewhere(): Promise<SessionClient> {
  const ws = await stack.newWorkspace("elsewhere");
  await inviteMember(new OperatorClient(stack.app.url, ws.workspaceId!), "elsewhere@example.com", "owner");
  return login(stack.app.url, "elsewhere@example.com");
}
