import type { Metadata } from "next";
import { Suspense } from "react";
import { redirect } from "next/navigation";
import { needsSetup } from "@/lib/auth/accounts";
import { AuthForm } from "@/components/auth/auth-form";
import { AuthShell } from "@/components/auth/auth-shell";

export const metadata: Metadata = { title: "Set up" };

export const dynamic = "force-dynamic";

export default async function SetupPage() {
  if (!(await needsSetup())) redirect("/login");
  return (
    <AuthShell title="Welcome to Eventrail" subtitle="Create the owner account and your first workspace.">
      <Suspense>
        <AuthForm mode="setup" />
      </Suspense>
    </AuthShell>
  );
}
