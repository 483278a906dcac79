import { apiRoute, parseBody } from "@/lib/http/route";
import { createTokenSchema } from "@/lib/auth/schemas";
import { createApiToken, listApiTokens } from "@/lib/auth/tokens";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ principal }) => ({ tokens: await listApiTokens({ workspaceId: principal.workspaceId }) }));

export const POST = apiRoute(
  async ({ req, principal }) => {
    const { name } = await parseBody(req, createTokenSchema);
    return createApiToken({ workspaceId: principal.workspaceId, name });
  },
  { status: 201 },
);
