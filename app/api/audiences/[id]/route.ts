import { apiRoute, parseBody } from "@/lib/http/route";
import { updateAudienceSchema } from "@/lib/audiences/schemas";
import { deleteAudience, getAudience, updateAudience } from "@/lib/audiences/audiences";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ principal, params }) => getAudience({ workspaceId: principal.workspaceId, id: params.id }));

export const PATCH = apiRoute<P>(async ({ req, principal, params }) =>
  updateAudience({ workspaceId: principal.workspaceId, id: params.id, input: await parseBody(req, updateAudienceSchema) }),
);

export const DELETE = apiRoute<P>(async ({ principal, params }) => deleteAudience({ workspaceId: principal.workspaceId, id: params.id }));
