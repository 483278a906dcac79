"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { createDeletionSchema, parseUserIdList } from "@/lib/deletions/contract";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { plural } from "@/components/ui/format";
import { useCreateDeletionMutation } from "./hooks";

/** The first problem with the pasted list, in words that point at the entry. */
function problemWith(userIds: string[]): string | undefined {
  if (userIds.length === 0) return "Enter at least one userId";
  const parsed = createDeletionSchema.safeParse({ userIds });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const index = typeof issue.path[1] === "number" ? issue.path[1] : undefined;
  if (index === undefined) return issue.message;
  const entry = userIds[index];
  return `${issue.message} (entry ${index + 1}: "${entry.length > 40 ? `${entry.slice(0, 40)}…` : entry}")`;
}

export function NewDeletionForm({ onDone }: { onDone: () => void }) {
  const router = useRouter();
  const [text, setText] = useState("");
  // The form opens on the user's click: their next keystrokes belong in it.
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  const [problem, setProblem] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const create = useCreateDeletionMutation();
  const userIds = parseUserIdList(text);
  const serverProblem = create.error instanceof ApiError && create.error.fields ? Object.values(create.error.fields)[0]?.[0] : undefined;
  const shown = problem ?? serverProblem;

  return (
    <Card className="mb-6 p-4">
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          const p = problemWith(userIds);
          setProblem(p);
          if (p) {
            field.current?.focus();
            return;
          }
          setConfirming(true);
        }}
      >
        <Field
          label="User IDs"
          htmlFor="deletion-user-ids"
          error={shown}
          hint="One userId per line, or separated by commas. Each user's events, profile and audience memberships are erased in this workspace."
        >
          <textarea
            id="deletion-user-ids"
            rows={5}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setProblem(undefined);
            }}
            placeholder={"user-1\nuser-2"}
            ref={field}
            className={`${inputClass} font-mono`}
          />
        </Field>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="danger" disabled={create.isPending}>
            {create.isPending ? "Creating…" : userIds.length > 0 ? `Erase ${plural(userIds.length, "user")}` : "Erase users"}
          </Button>
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        </div>
        {!serverProblem ? <ErrorNote error={create.error} /> : null}
      </form>
      <ConfirmDialog
        open={confirming}
        title={`Erase ${plural(userIds.length, "user")}?`}
        confirmLabel={`Erase ${plural(userIds.length, "user")}`}
        tone="danger"
        busy={create.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          create.mutate(userIds, {
            onSuccess: (created) => {
              setConfirming(false);
              onDone();
              router.push(`/deletions/${created.id}`);
            },
            onError: () => setConfirming(false),
          })
        }
      >
        Their stored events, profiles and audience memberships are erased, and each source that held their data sends a delete notice to its
        webhooks. This cannot be undone.
      </ConfirmDialog>
    </Card>
  );
}
