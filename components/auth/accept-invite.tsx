"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { useAcceptInvitationMutation } from "./hooks";

/** Logged in: one button. Otherwise an email and password: a new account's, or an existing account's own. */
export function AcceptInvite({ token, loggedInAs, email }: { token: string; loggedInAs: string | null; email: string | null }) {
  const router = useRouter();
  const accept = useAcceptInvitationMutation();
  const [asOther, setAsOther] = useState(false);
  const fields = accept.error instanceof ApiError ? accept.error.fields : undefined;
  const done = () => {
    router.replace("/overview");
    router.refresh();
  };

  if (loggedInAs && !asOther) {
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          You are logged in as <bdi className="font-medium">{loggedInAs}</bdi>.
        </p>
        <ErrorNote error={accept.error} />
        <Button className="w-full" disabled={accept.isPending} onClick={() => accept.mutate({ token }, { onSuccess: done })}>
          Join as {loggedInAs}
        </Button>
        <button type="button" className="text-sm text-indigo-700 hover:underline" onClick={() => setAsOther(true)}>
          Use another account
        </button>
      </div>
    );
  }
  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        accept.mutate({ token, email: String(f.get("email") ?? ""), password: String(f.get("password") ?? "") }, { onSuccess: done });
      }}
    >
      <Field label="Email" htmlFor="email" error={fields?.email?.[0]}>
        <Input id="email" name="email" type="email" autoComplete="email" defaultValue={email ?? ""} required />
      </Field>
      <Field
        label="Password"
        htmlFor="password"
        error={fields?.password?.[0]}
        hint="New here: choose one (at least 10 characters). Already have an account: its password."
      >
        <Input id="password" name="password" type="password" autoComplete="new-password" required />
      </Field>
      {accept.error && !fields ? <ErrorNote error={accept.error} /> : null}
      <Button type="submit" className="w-full" disabled={accept.isPending}>
        {accept.isPending ? "Joining…" : "Join the workspace"}
      </Button>
    </form>
  );
}
