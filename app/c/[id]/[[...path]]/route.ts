import { handleCapture } from "@/lib/capture/respond";

export const dynamic = "force-dynamic";

// The public capture receiver: /c/:id and any sub-path below it land in the same bin, with the path recorded.
export const GET = handleCapture;
export const POST = handleCapture;
export const PUT = handleCapture;
export const PATCH = handleCapture;
export const DELETE = handleCapture;
export const HEAD = handleCapture;
export const OPTIONS = handleCapture;
