import type { Metadata } from "next";
import { Suspense } from "react";
import { redirect } from "next/navigation";
import { needsSetup } from "@/lib/auth/accounts";
import { AuthForm } from "@/components/auth/auth-form";
import { AuthShell } from "@/components/auth/auth-shell";

export const metadata: Metadata = { title: "Log in" };

export const dynamic = "force-dynamic";

export default async function LoginPage() {
  if (await needsSetup()) redirect("/setup");
  return (
    <AuthShell title="Log in to Eventrail" subtitle="Route events to your webhooks, signed and retried.">
      <Suspense>
        <AuthForm mode="login" />
      </Suspense>
    </AuthShell>
  );
}
