import { describe, expect, it } from "vitest";
import { readCappedBody } from "./receive";

const stream = (chunks: number[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const [i, n] of chunks.entries()) c.enqueue(new Uint8Array(n).fill(65 + i));
      c.close();
    },
  });

describe("readCappedBody", () => {
  it("keeps a body under the cap whole", async () => {
    const r = await readCappedBody(stream([3, 4]), 10);
    expect(r).toMatchObject({ size: 7, truncated: false });
    expect(new TextDecoder().decode(r.bytes)).toBe("AAABBBB");
  });
  it("keeps the first cap bytes across chunks and counts the rest", async () => {
    const r = await readCappedBody(stream([4, 4, 4]), 6);
    expect(r).toMatchObject({ size: 12, truncated: true });
    expect(new TextDecoder().decode(r.bytes)).toBe("AAAABB");
  });
  it("treats a missing body as empty", async () => {
    expect(await readCappedBody(null, 6)).toMatchObject({ size: 0, truncated: false });
  });
});
