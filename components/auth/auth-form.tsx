"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ApiError, api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { ErrorNote } from "@/components/ui/card";

/** The login and first-run setup forms (setup adds a workspace name and creates the owner). */
export function AuthForm({ mode }: { mode: "login" | "setup" }) {
  const router = useRouter();
  const next = useSearchParams().get("next");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await api(`/api/auth/${mode}`, { method: "POST", body: Object.fromEntries(form.entries()) });
      router.replace(next && next.startsWith("/") && !next.startsWith("//") ? next : "/sources");
      router.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.fields) setFields(err.fields);
      else setError(err);
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      {mode === "setup" ? (
        <Field label="Workspace name" htmlFor="workspaceName" error={fields.workspaceName?.[0]}>
          <Input id="workspaceName" name="workspaceName" defaultValue="My workspace" />
        </Field>
      ) : null}
      <Field label="Email" htmlFor="email" error={fields.email?.[0]}>
        <Input id="email" name="email" type="email" autoComplete="email" required aria-invalid={!!fields.email} />
      </Field>
      <Field
        label="Password"
        htmlFor="password"
        error={fields.password?.[0]}
        hint={mode === "setup" ? "At least 10 characters." : undefined}
      >
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete={mode === "setup" ? "new-password" : "current-password"}
          required
          aria-invalid={!!fields.password}
        />
      </Field>
      <ErrorNote error={error} />
      <Button type="submit" disabled={busy} className="w-full">
        {mode === "setup" ? (busy ? "Creating…" : "Create owner account") : busy ? "Logging in…" : "Log in"}
      </Button>
    </form>
  );
}
