/** Dashboard sessions for tests: the first-run owner, and members who joined by invitation. */
import { ADMIN_TOKEN, ApiClient, SETUP_CODE } from "./stack";

/** An ApiClient that authenticates with the session cookie and the CSRF header, as the dashboard does. */
export class SessionClient extends ApiClient {
  constructor(
    baseUrl: string,
    readonly cookie: string,
    readonly csrf: string,
    readonly email: string,
  ) {
    super(baseUrl, "");
  }

  protected override authHeaders(): Record<string, string> {
    return { cookie: this.cookie, "x-csrf-token": this.csrf };
  }
}

/** The session of a response that set the er_session and er_csrf cookies. */
export function sessionOf(baseUrl: string, res: Response, email: string): SessionClient {
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("er_csrf="))?.slice("er_csrf=".length);
  if (!csrf) throw new Error(`no session cookies in the answer (${res.status})`);
  return new SessionClient(baseUrl, cookies.join("; "), csrf, email);
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

export const PASSWORD = "correct horse battery";

/** First-run setup: the owner's session in the first workspace. */
export async function setupOwner(baseUrl: string, email = "owner@example.com"): Promise<SessionClient> {
  const res = await postJson(`${baseUrl}/api/auth/setup`, { email, password: PASSWORD, code: SETUP_CODE });
  if (res.status !== 201) throw new Error(`setup → ${res.status} ${await res.text()}`);
  return sessionOf(baseUrl, res, email);
}

export async function login(baseUrl: string, email: string, password = PASSWORD): Promise<SessionClient> {
  const res = await postJson(`${baseUrl}/api/auth/login`, { email, password });
  if (res.status !== 200) throw new Error(`login ${email} → ${res.status} ${await res.text()}`);
  return sessionOf(baseUrl, res, email);
}

/** The owner invites `email` as `role`; the invitee accepts with a new account and is logged in. */
export async function inviteMember(owner: ApiClient, email: string, role: "owner" | "admin" | "viewer"): Promise<SessionClient> {
  const invite = await owner.post<{ url: string }>("/api/invitations", { role });
  const token = invite.url.split("/invite/")[1];
  const res = await postJson(`${owner.baseUrl}/api/invitations/accept`, { token, email, password: PASSWORD });
  if (res.status !== 200) throw new Error(`accept → ${res.status} ${await res.text()}`);
  return sessionOf(owner.baseUrl, res, email);
}

/** The operator's admin token acting in one workspace (X-Eventrail-Workspace): an owner there. */
export class OperatorClient extends ApiClient {
  constructor(baseUrl: string, workspaceId: string) {
    super(baseUrl, ADMIN_TOKEN, workspaceId);
  }

  protected override authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${ADMIN_TOKEN}`, "x-eventrail-workspace": this.workspaceId! };
  }
}
