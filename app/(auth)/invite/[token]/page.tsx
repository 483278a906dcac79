import type { Metadata } from "next";
import { cookies } from "next/headers";
import { AcceptInvite } from "@/components/auth/accept-invite";
import { AuthShell } from "@/components/auth/auth-shell";
import { SESSION_COOKIE, findSession } from "@/lib/auth/sessions";
import { lookUpInvitation } from "@/lib/members/invitations";

export const metadata: Metadata = { title: "Invitation" };

export const dynamic = "force-dynamic";

/** An invite link (docs/management-api.md#invitations): join as a new account, an existing one, or the one logged in. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invite = await lookUpInvitation(token);
  if (!invite?.usable) {
    return (
      <AuthShell title="This invitation no longer works" subtitle="It was already used, withdrawn or has expired.">
        <p className="text-sm text-slate-600">Ask an owner of the workspace for a new link.</p>
      </AuthShell>
    );
  }
  const session = await findSession((await cookies()).get(SESSION_COOKIE)?.value);
  return (
    <AuthShell
      title={`Join ${invite.workspaceName}`}
      subtitle={`You are invited as ${invite.role === "admin" ? "an admin" : `a ${invite.role}`}.`}
    >
      <AcceptInvite token={token} loggedInAs={session?.email ?? null} email={invite.email} />
    </AuthShell>
  );
}
