import { handleCapture } from "@/lib/capture/respond";

export const dynamic = "force-dynamic";

// Sub-paths of a capture URL (/c/:id/anything) land in the same bin with their path recorded.
export const GET = handleCapture;
export const POST = handleCapture;
export const PUT = handleCapture;
export const PATCH = handleCapture;
export const DELETE = handleCapture;
export const HEAD = handleCapture;
export const OPTIONS = handleCapture;
