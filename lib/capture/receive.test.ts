import { describe, expect, it } from "vitest";
import { maskSentBearer, readCappedBody } from "./receive";

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

describe("maskSentBearer (docs/endpoint-auth.md#request-log)", () => {
  const masked = (h: Record<string, string>) => {
    const copy = { ...h };
    maskSentBearer(copy);
    return copy.authorization;
  };
  it("keeps no bearer token Eventrail sent: by its user agent or its signatures", () => {
    expect(masked({ "user-agent": "Eventrail.io/1.0", authorization: "Bearer eyJ.abc.def" })).toBe("Bearer ****");
    expect(masked({ "x-signature": "ab12", authorization: "bearer t" })).toBe("Bearer ****");
    expect(masked({ "webhook-signature": "v1,x", authorization: "Bearer t" })).toBe("Bearer ****");
  });
  it("keeps another sender's header, and any other scheme, as sent", () => {
    expect(masked({ "user-agent": "curl/8", authorization: "Bearer theirs" })).toBe("Bearer theirs");
    expect(masked({ "user-agent": "Eventrail.io/1.0", authorization: "Basic dTpw" })).toBe("Basic dTpw");
    expect(masked({ "user-agent": "Eventrail.io/1.0" })).toBeUndefined();
  });
});
