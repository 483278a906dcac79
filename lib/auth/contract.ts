import { z } from "zod";
import { endpoint } from "../api/endpoint";

/** Logging in, first-run setup, API tokens and workspaces (docs/management-api.md#authentication). */

/** Longest password accepted (characters): long passphrases fit, megabyte ones never reach the hasher. */
export const PASSWORD_MAX = 256;
/** The auth endpoints' body limit: an email, a password and a setup code fit many times over. */
export const AUTH_MAX_BODY_BYTES = 4 * 1024;

const emailSchema = z.string().trim().toLowerCase().max(254, "Use at most 254 characters").email("Enter a valid email address");

export const credentialsSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, "Enter your password").max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters`),
});

export const setupSchema = z.object({
  email: emailSchema,
  password: z.string().min(10, "Use at least 10 characters").max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters`),
  workspaceName: z.string().trim().min(1, "Name your workspace").max(100, "Use at most 100 characters").default("My workspace"),
  /** The one-time setup code `npm start` prints in its setup link (or EVENTRAIL_SETUP_CODE). */
  code: z.string().max(200).default(""),
});

/** read: acts as a viewer (every change answers 403); full: acts as an admin (docs/management-api.md#api-tokens). */
export const tokenScopeSchema = z.enum(["read", "full"]);
export type TokenScope = z.infer<typeof tokenScopeSchema>;

export const createTokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token").max(100),
  scope: tokenScopeSchema.default("full"),
});

export const createWorkspaceSchema = z.object({ name: z.string().trim().min(1).max(100) });

/** Workspaces one account may own (docs/management-api.md#your-account-and-workspaces): each costs storage and a worker's attention. */
export const WORKSPACE_LIMITS = { ownedPerAccount: 20 } as const;

export type Credentials = z.infer<typeof credentialsSchema>;
export type SetupInput = z.infer<typeof setupSchema>;
export type CreateTokenInput = z.infer<typeof createTokenSchema>;
export type CreateWorkspaceInput = z.infer<typeof createWorkspaceSchema>;

/** Login, logout and setup answer this; the session itself travels in the er_session and er_csrf cookies. */
export const okSchema = z.object({ ok: z.literal(true) });

/** An API token as listed: never its value, only the prefix that tells tokens apart. */
export const apiTokenDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scope: tokenScopeSchema,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

/** The answer of creating a token: the only time its value is shown (it is stored hashed). */
export const createdApiTokenDtoSchema = apiTokenDtoSchema.extend({ token: z.string() });

/** The answer of creating a workspace: the workspace and the value of its first API token. */
export const createdWorkspaceDtoSchema = z.object({
  workspace: z.object({ id: z.string(), name: z.string(), createdAt: z.string() }),
  token: z.string(),
});

/** GET /api/health (lib/platform/health.ts): the body is the same whether it answers 200 or 503. */
export const healthDtoSchema = z.object({
  ok: z.boolean(),
  database: z.enum(["ok", "unreachable"]),
  queue: z.enum(["ok", "missing", "unreachable"]),
});

export type ApiTokenDto = z.infer<typeof apiTokenDtoSchema>;
export type CreatedApiTokenDto = z.infer<typeof createdApiTokenDtoSchema>;
export type CreatedWorkspaceDto = z.infer<typeof createdWorkspaceDtoSchema>;
export type HealthDto = z.infer<typeof healthDtoSchema>;

export const authEndpoints = {
  login: endpoint({
    method: "POST",
    path: "/api/auth/login",
    access: "public",
    summary: "Log in with email and password; the answer sets the session and CSRF cookies",
    description: "Throttled per account and per client address: a growing delay, then 429 with Retry-After.",
    body: credentialsSchema,
    maxBodyBytes: AUTH_MAX_BODY_BYTES,
    response: okSchema,
  }),
  logout: endpoint({
    method: "POST",
    path: "/api/auth/logout",
    access: "public",
    summary: "Log out: end the cookie's session and clear the session and CSRF cookies",
    response: okSchema,
  }),
  setup: endpoint({
    method: "POST",
    path: "/api/auth/setup",
    access: "public",
    summary: "First run only: create the owner and the first workspace, and log the owner in",
    description: "Needs the one-time setup code (`code`) that `npm start` prints, or EVENTRAIL_SETUP_CODE: 403 without it.",
    body: setupSchema,
    maxBodyBytes: AUTH_MAX_BODY_BYTES,
    response: okSchema,
    status: 201,
  }),
  listTokens: endpoint({
    method: "GET",
    path: "/api/tokens",
    access: "admin",
    summary: "List the workspace's API tokens, newest first, revoked ones included",
    response: z.object({ tokens: z.array(apiTokenDtoSchema) }),
  }),
  createToken: endpoint({
    method: "POST",
    path: "/api/tokens",
    access: "admin",
    summary: "Create an API token for the workspace; the answer carries its value, shown this once",
    body: createTokenSchema,
    response: createdApiTokenDtoSchema,
    status: 201,
  }),
  revokeToken: endpoint({
    method: "DELETE",
    path: "/api/tokens/{id}",
    access: "admin",
    summary: "Revoke an API token: it answers 401 from then on",
    response: apiTokenDtoSchema,
  }),
  createWorkspace: endpoint({
    method: "POST",
    path: "/api/workspaces",
    access: "operator",
    summary: "Create a workspace and its first API token (the operator's admin token only)",
    body: createWorkspaceSchema,
    response: createdWorkspaceDtoSchema,
    status: 201,
  }),
  /** Not about auth, but public like the rest here; the platform has no browser-safe contract of its own. */
  health: endpoint({
    method: "GET",
    path: "/api/health",
    access: "public",
    summary: "Health for load balancers: database reachable and queue installed (200), or not (503, same body)",
    response: healthDtoSchema,
  }),
};

/** The logged-in member, Settings and the workspace switcher (docs/management-api.md#your-account-and-workspaces). */
export const meDtoSchema = z.object({
  email: z.string(),
  role: z.enum(["owner", "admin", "viewer"]),
  workspace: z.object({ id: z.string(), name: z.string() }),
  /** Every workspace the account belongs to, with its role there: the switcher lists them. */
  workspaces: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(["owner", "admin", "viewer"]) })),
});

export const sessionDtoSchema = z.object({
  /** The first characters of the session's stored id: enough to tell sessions apart, useless to log in. */
  id: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  address: z.string().nullable(),
  userAgent: z.string().nullable(),
  current: z.boolean(),
});

export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1, "Enter your current password").max(PASSWORD_MAX),
  newPassword: z.string().min(10, "Use at least 10 characters").max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters`),
});

export const switchWorkspaceSchema = z.object({ workspaceId: z.string().uuid("Not a workspace id") });
export const renameWorkspaceSchema = z.object({ name: z.string().trim().min(1, "Name the workspace").max(100) });

export type MeDto = z.infer<typeof meDtoSchema>;
export type SessionDto = z.infer<typeof sessionDtoSchema>;
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

const workspaceDto = z.object({ id: z.string(), name: z.string() });

export const accountEndpoints = {
  me: endpoint({
    method: "GET",
    path: "/api/me",
    access: "account",
    summary: "The logged-in member: email, role, the current workspace and every workspace of the account",
    response: meDtoSchema,
  }),
  createOwnWorkspace: endpoint({
    method: "POST",
    path: "/api/me/workspaces",
    access: "account",
    summary: "Create a workspace of your own (you are its owner) and switch the session to it",
    body: createWorkspaceSchema,
    response: workspaceDto,
    status: 201,
  }),
  switchWorkspace: endpoint({
    method: "PUT",
    path: "/api/me/workspace",
    access: "account",
    summary: "Switch the session to another workspace you belong to",
    body: switchWorkspaceSchema,
    response: workspaceDto,
  }),
  changePassword: endpoint({
    method: "POST",
    path: "/api/me/password",
    access: "account",
    summary: "Change your password (the current one is checked); your other sessions end",
    body: changePasswordSchema,
    maxBodyBytes: AUTH_MAX_BODY_BYTES,
    status: 204,
  }),
  sessions: endpoint({
    method: "GET",
    path: "/api/me/sessions",
    access: "account",
    summary: "Your sessions: where and when each logged in",
    response: z.object({ sessions: z.array(sessionDtoSchema) }),
  }),
  signOutOthers: endpoint({
    method: "DELETE",
    path: "/api/me/sessions",
    access: "account",
    summary: "Sign out your other sessions (this one stays)",
    response: z.object({ ended: z.number().int() }),
  }),
  renameWorkspace: endpoint({
    method: "PATCH",
    path: "/api/workspace",
    access: "owner",
    summary: "Rename the current workspace (owners only)",
    body: renameWorkspaceSchema,
    response: workspaceDto,
  }),
};
