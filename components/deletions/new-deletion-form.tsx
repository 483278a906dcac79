"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { createDeletionSchema, parseUserIdList } from "@/lib/deletions/schemas";
import { ApiError } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { Field, inputClass } from "@/components/ui/field";
import { createDeletion, deletionKeys } from "./queries";

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
  const qc = useQueryClient();
  const router = useRouter();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string>();
  const create = useMutation({
    mutationFn: createDeletion,
    onSuccess: async (created) => {
      await qc.invalidateQueries({ queryKey: deletionKeys.list() });
      onDone();
      router.push(`/deletions/${created.id}`);
    },
  });
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
          if (p) return;
          const n = userIds.length;
          if (confirm(`Erase ${n} ${n === 1 ? "user" : "users"} and notify their sources' webhooks? This cannot be undone.`)) create.mutate(userIds);
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
            autoFocus
            aria-invalid={!!shown}
            className={`${inputClass} font-mono`}
          />
        </Field>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="danger" disabled={create.isPending}>
            {create.isPending ? "Creating…" : userIds.length > 0 ? `Erase ${userIds.length} ${userIds.length === 1 ? "user" : "users"}` : "Erase users"}
          </Button>
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        </div>
        {!serverProblem ? <ErrorNote error={create.error} /> : null}
      </form>
    </Card>
  );
}
