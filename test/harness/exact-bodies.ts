/**
 * Request bodies of an exact size in bytes, for the tests at each limit, one byte (or item) over
 * and one under (issue 40): sizes are computed, then checked, never guessed.
 */

export const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

function exactly(text: string, bytes: number): string {
  if (utf8Bytes(text) !== bytes) throw new Error(`built ${utf8Bytes(text)} bytes, wanted ${bytes}`);
  return text;
}

/** `value` as JSON followed by spaces (JSON whitespace), `bytes` long in all. */
export function jsonOfBytes(value: unknown, bytes: number): string {
  const json = JSON.stringify(value);
  if (utf8Bytes(json) > bytes) throw new Error(`${utf8Bytes(json)} bytes of JSON before padding, wanted ${bytes}`);
  return exactly(json + " ".repeat(bytes - utf8Bytes(json)), bytes);
}

/** `message` with `properties.pad` of ASCII filler, so that its JSON is exactly `bytes` long. */
export function messageOfBytes(message: Record<string, unknown>, bytes: number): Record<string, unknown> {
  const at = (n: number) => ({ ...message, properties: { ...(message.properties as object), pad: "x".repeat(n) } });
  const base = utf8Bytes(JSON.stringify(at(0)));
  const built = at(bytes - base);
  exactly(JSON.stringify(built), bytes);
  return built;
}

/**
 * A `{"batch": [...]}` body exactly `bytes` long, made of `count` messages of about equal size
 * (each padded by `properties.pad`), every one of them under the 32 KB message limit.
 */
export function batchOfBytes(bytes: number, count: number, message: (i: number) => Record<string, unknown>): string {
  const pads = new Array<number>(count).fill(0);
  const body = () =>
    JSON.stringify({
      batch: pads.map((n, i) => ({ ...message(i), properties: { ...(message(i).properties as object), pad: "x".repeat(n) } })),
    });
  const spare = bytes - utf8Bytes(body());
  if (spare < 0) throw new Error(`${count} messages take more than ${bytes} bytes`);
  for (let i = 0; i < count; i++) pads[i] = Math.floor(spare / count) + (i < spare % count ? 1 : 0);
  return exactly(body(), bytes);
}

/** POSTs `body` in 16 KB chunks without a Content-Length (chunked), so the server counts it as it arrives. */
export async function postChunked(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const bytes = Buffer.from(body, "utf8");
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (offset >= bytes.length) return ctrl.close();
      ctrl.enqueue(new Uint8Array(bytes.subarray(offset, offset + 16_384)));
      offset += 16_384;
    },
  });
  const res = await fetch(url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}
