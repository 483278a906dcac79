import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/http/route";
import { withTransaction } from "@/lib/db";
import { assertAudienceId } from "@/lib/audiences/audiences";
import { requestAudienceSync } from "@/lib/audiences/syncs";

export const dynamic = "force-dynamic";
type P = { id: string };

/** "Sync now": 202 with the sync that will run — a new one, or the one already queued or running (200). */
export const POST = apiRoute<P>(async ({ principal, params }) => {
  assertAudienceId(params.id);
  const { sync, created } = await withTransaction((client) =>
    requestAudienceSync(client, { audienceId: params.id, workspaceId: principal.workspaceId, trigger: "manual" }),
  );
  return NextResponse.json({ sync, created }, { status: created ? 202 : 200 });
});
