import { apiRoute } from "@/lib/api/api-route";
import { auditEndpoints } from "@/lib/audit/contract";
import { listAuditEvents } from "@/lib/audit/list";

export const dynamic = "force-dynamic";

export const GET = apiRoute(auditEndpoints.list, async ({ principal, query }) =>
  listAuditEvents({ workspaceId: principal.workspaceId, query }),
);
