import "server-only";
import { errorResponse } from "../api/api-route";
import { takePoint } from "../platform/rate-limits";
import { isBinId } from "./bins";
import { captureRequest } from "./receive";

const NO_BODY = new Set([204, 205, 304]);

/**
 * The public receiver `ANY /c/:id[/…]`: no authentication (the unguessable id is the secret).
 * Stores the request, waits the bin's delay, then answers with the bin's status.
 */
export async function handleCapture(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const requestId = crypto.randomUUID();
  try {
    const { id } = await ctx.params;
    // Throttled per bin before anything is read or stored (docs/operations.md#throttling).
    if (isBinId(id)) await takePoint("capture", id);
    const result = await captureRequest({ binId: id, req });
    if (!result) return Response.json({ error: { code: "not_found", message: "Capture URL not found" } }, { status: 404 });
    if (result.delayMs > 0) await new Promise((r) => setTimeout(r, result.delayMs));
    const headers = { "cache-control": "no-store", "x-eventrail-capture-id": result.requestId };
    if (req.method === "HEAD" || NO_BODY.has(result.status)) return new Response(null, { status: result.status, headers });
    return Response.json({ captured: true, id: result.requestId }, { status: result.status, headers });
  } catch (err) {
    return errorResponse(err, requestId);
  }
}
