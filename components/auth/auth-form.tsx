"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { ErrorNote } from "@/components/ui/card";
import { useFocusFirstInvalid } from "@/components/ui/use-focus-first-invalid";
import { safeNextPath } from "@/lib/auth/next-path";
import { useAuthMutation } from "./hooks";

/** The login and first-run setup forms (setup adds a workspace name and creates the owner). */
export function AuthForm({ mode }: { mode: "login" | "setup" }) {
  const router = useRouter();
  const params = useSearchParams();
  const next = params.get("next");
  const setupCode = params.get("code");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submitForm = useAuthMutation(mode);
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await submitForm.mutateAsync(Object.fromEntries(form.entries()));
      // Only ever to a page of this app (docs/dashboard.md#login): `next` comes from the address bar.
      router.replace(safeNextPath(next, window.location.origin));
      router.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.fields) {
        setFields(err.fields);
        focusFirstInvalid();
      } else setError(err);
      setBusy(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={submit} className="space-y-4" noValidate>
      {mode === "setup" && setupCode ? <input type="hidden" name="code" value={setupCode} /> : null}
      {mode === "setup" && !setupCode ? (
        <Field
          label="Setup code"
          htmlFor="code"
          error={fields.code?.[0]}
          hint="Printed by npm start in its setup link (…/setup?code=…), or the value of EVENTRAIL_SETUP_CODE."
        >
          <Input id="code" name="code" autoComplete="off" required />
        </Field>
      ) : null}
      {mode === "setup" ? (
        <Field label="Workspace name" htmlFor="workspaceName" error={fields.workspaceName?.[0]}>
          <Input id="workspaceName" name="workspaceName" defaultValue="My workspace" />
        </Field>
      ) : null}
      <Field label="Email" htmlFor="email" error={fields.email?.[0]}>
        <Input id="email" name="email" type="email" autoComplete="email" required />
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
        />
      </Field>
      <ErrorNote error={error} />
      <Button type="submit" disabled={busy} className="w-full">
        {mode === "setup" ? (busy ? "Creating…" : "Create owner account") : busy ? "Logging in…" : "Log in"}
      </Button>
    </form>
  );
}
