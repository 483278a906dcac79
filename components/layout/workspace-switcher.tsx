"use client";

import { useState } from "react";
import { useCreateWorkspaceMutation, useSwitchWorkspaceMutation } from "@/components/settings/hooks";
import { ErrorNote } from "@/components/ui/card";
import { Input } from "@/components/ui/field";
import { selectClass } from "@/components/ui/format";

/**
 * The current workspace; a switcher when the account belongs to more than one, and a way to create
 * another. Switching reloads the dashboard: every page shows the new workspace's data.
 */
export function WorkspaceSwitcher({ current, workspaces }: { current: string; workspaces: { id: string; name: string; role: string }[] }) {
  const switchTo = useSwitchWorkspaceMutation();
  const create = useCreateWorkspaceMutation();
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const reload = () => window.location.assign("/overview");
  const currentName = workspaces.find((w) => w.id === current)?.name ?? "";

  return (
    <div className="mb-2">
      {workspaces.length > 1 ? (
        <select
          aria-label="Workspace"
          className={`${selectClass} w-full`}
          value={current}
          disabled={switchTo.isPending}
          onChange={(e) => switchTo.mutate(e.target.value, { onSuccess: reload })}
        >
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.role})
            </option>
          ))}
        </select>
      ) : (
        <div className="truncate font-medium text-slate-700" title={currentName}>
          {currentName}
        </div>
      )}
      {creating ? (
        <form
          className="mt-2 flex gap-1"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(name, { onSuccess: reload });
          }}
        >
          <Input aria-label="New workspace name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" />
          <button
            type="submit"
            className="rounded-md px-2 text-indigo-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50"
            disabled={create.isPending}
          >
            Create
          </button>
        </form>
      ) : (
        <button type="button" className="mt-1 text-indigo-700 hover:underline" onClick={() => setCreating(true)}>
          New workspace
        </button>
      )}
      <ErrorNote error={switchTo.error ?? create.error} />
    </div>
  );
}
