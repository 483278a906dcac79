import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { PASSWORD_MAX } from "../auth/contract";

/** Members, roles and invitations of a workspace (docs/management-api.md#roles, #invitations). */

export const roleSchema = z.enum(["owner", "admin", "viewer"]);

export const memberDtoSchema = z.object({
  userId: z.string(),
  email: z.string(),
  role: roleSchema,
  createdAt: z.string(),
});

export const invitationDtoSchema = z.object({
  id: z.string(),
  role: roleSchema,
  email: z.string().nullable(),
  expiresAt: z.string(),
  acceptedAt: z.string().nullable(),
  createdAt: z.string(),
});

/** The answer of creating an invitation: the link, shown this once (only its hash is stored), and whether it was emailed. */
export const createdInvitationDtoSchema = invitationDtoSchema.extend({ url: z.string(), emailed: z.boolean() });

export const createInvitationSchema = z.object({
  role: roleSchema,
  /** Optional: with SMTP_URL set, the link is emailed to it; the link works for whoever opens it either way. */
  email: z.string().trim().toLowerCase().max(254).email("Enter a valid email address").optional(),
  expiresInHours: z.coerce
    .number()
    .int()
    .min(1, "At least 1 hour")
    .max(24 * 30, "At most 30 days")
    .default(72),
});

export const changeRoleSchema = z.object({ role: roleSchema });

/**
 * Accepting an invitation: logged in, nothing else is needed (the session's account joins); otherwise
 * an email and password — of an existing account (joined after the password is checked) or a new one.
 */
export const acceptInvitationSchema = z.object({
  token: z.string().min(1).max(200),
  email: z.string().trim().toLowerCase().max(254).email("Enter a valid email address").optional(),
  password: z.string().max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters`).optional(),
});

export type MemberDto = z.infer<typeof memberDtoSchema>;
export type InvitationDto = z.infer<typeof invitationDtoSchema>;
export type CreatedInvitationDto = z.infer<typeof createdInvitationDtoSchema>;
export type CreateInvitationInput = z.infer<typeof createInvitationSchema>;
export type AcceptInvitationInput = z.infer<typeof acceptInvitationSchema>;

const member = { path: "/api/members/{id}" } as const;
const invitation = { path: "/api/invitations/{id}" } as const;

export const memberEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/members",
    access: "viewer",
    summary: "The workspace's members and their roles",
    response: z.object({ members: z.array(memberDtoSchema) }),
  }),
  changeRole: endpoint({
    method: "PATCH",
    ...member,
    access: "owner",
    summary: "Change a member's role; the last owner cannot stop being one (409)",
    body: changeRoleSchema,
    response: memberDtoSchema,
  }),
  remove: endpoint({
    method: "DELETE",
    ...member,
    access: "owner",
    summary: "Remove a member from the workspace (their sessions in it end); never the last owner (409)",
  }),
  listInvitations: endpoint({
    method: "GET",
    path: "/api/invitations",
    access: "owner",
    summary: "The workspace's invitations, newest first (accepted and expired ones included)",
    response: z.object({ invitations: z.array(invitationDtoSchema) }),
  }),
  createInvitation: endpoint({
    method: "POST",
    path: "/api/invitations",
    access: "owner",
    summary: "Create a single-use invite link for a role; the answer carries the link, shown this once",
    body: createInvitationSchema,
    response: createdInvitationDtoSchema,
    status: 201,
  }),
  revokeInvitation: endpoint({
    method: "DELETE",
    ...invitation,
    access: "owner",
    summary: "Withdraw an invitation that has not been accepted yet",
  }),
  acceptInvitation: endpoint({
    method: "POST",
    path: "/api/invitations/accept",
    access: "public",
    summary: "Accept an invitation: join as the logged-in account, an existing account (email and password) or a new one",
    description: "Single use and until it expires: 409 after that. The answer sets the session in the invitation's workspace.",
    body: acceptInvitationSchema,
    maxBodyBytes: 4 * 1024,
    response: z.object({ ok: z.literal(true) }),
  }),
};
