import { apiRoute } from "@/lib/http/route";
import { rotateWriteKey } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ principal, params }) =>
  rotateWriteKey({ workspaceId: principal.workspaceId, id: params.id }),
);
