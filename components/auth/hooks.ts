import { useMutation } from "@tanstack/react-query";
import { authRoutes } from "@/lib/auth/routes";
import { memberRoutes } from "@/lib/members/routes";
import type { AcceptInvitationInput } from "@/lib/members/contract";
import { call } from "@/components/data/api-client";

/** Logging in, first-run setup (creates the owner and the workspace) and logging out (/api/auth/*). */

/** The form's fields as sent: the API validates them and answers with field errors (an absent field is sent empty). */
const text = (v: FormDataEntryValue | undefined) => (typeof v === "string" ? v : "");

export function useAuthMutation(mode: "login" | "setup") {
  return useMutation({
    mutationFn: (form: Record<string, FormDataEntryValue>) => {
      const credentials = { email: text(form.email), password: text(form.password) };
      return mode === "login"
        ? call(authRoutes.login, { body: credentials })
        : call(authRoutes.setup, { body: { workspaceName: text(form.workspaceName), code: text(form.code), ...credentials } });
    },
  });
}

export function useLogoutMutation() {
  return useMutation({ mutationFn: () => call(authRoutes.logout) });
}

/** Accepting an invitation (/api/invitations/accept): the answer sets the session in its workspace. */
export function useAcceptInvitationMutation() {
  return useMutation({ mutationFn: (body: AcceptInvitationInput) => call(memberRoutes.acceptInvitation, { body }) });
}
