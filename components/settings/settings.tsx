"use client";

import { useCan } from "@/components/layout/role";
import { MembersSettings } from "@/components/members/members";
import { PageHeader } from "@/components/ui/card";
import { AccountSettings, WorkspaceSettings } from "./account";
import { TokensSettings } from "./tokens";

/** Settings (issue 15.13): the workspace, its members, API tokens (admins), and your own account. */
export function SettingsView({ email }: { email: string }) {
  const isAdmin = useCan("admin");
  return (
    <>
      <PageHeader title="Settings" description="This workspace, its members and API tokens, and your own account." />
      <WorkspaceSettings />
      <MembersSettings me={email} />
      {isAdmin ? <TokensSettings /> : null}
      <AccountSettings />
    </>
  );
}
