import { z } from "zod";
import { AppError } from "@/lib/errors";
import { apiRoute, parseBody } from "@/lib/http/route";
import { createWorkspace } from "@/lib/auth/workspaces";

export const dynamic = "force-dynamic";

const schema = z.object({ name: z.string().trim().min(1).max(100) });

/** Operator-only (EVENTRAIL_ADMIN_TOKEN): create a workspace and its first API token. */
export const POST = apiRoute(
  async ({ req, principal }) => {
    if (principal.kind !== "admin") throw new AppError("forbidden", "Only the operator's admin token can create workspaces");
    return createWorkspace(await parseBody(req, schema));
  },
  { status: 201 },
);
