"use client";

import { AlertSettingsCard } from "@/components/alerts/alert-settings";
import { useCan } from "@/components/layout/role";
import { MembersSettings } from "@/components/members/members";
import { PageHeader } from "@/components/ui/card";
import { AccountSettings, WorkspaceSettings } from "./account";
import { TokensSettings } from "./tokens";

/** Settings: the workspace, its members, API tokens and endpoint alerts (admins), and your own account. */
export function SettingsView({ email }: { email: string }) {
  const isAdmin = useCan("admin");
  return (
    <>
      <PageHeader title="Settings" description="This workspace, its members, API tokens and endpoint alerts, and your own account." />
      {/* One stack with one gap: the cards carry no outer margins of their own. */}
      <div className="space-y-6">
        <WorkspaceSettings />
        <MembersSettings me={email} />
        {isAdmin ? <TokensSettings /> : null}
        {isAdmin ? <AlertSettingsCard /> : null}
        <AccountSettings />
      </div>
    </>
  );
}
