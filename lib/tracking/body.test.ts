import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { checkContentType, parseCallBody, readLimitedBody } from "./body";
import { AppError } from "../platform/errors";
import { writeKeyFromAuthorization } from "./write-key";

const buf = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v));
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return "ok";
};
const codeAsync = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (err) => (err instanceof AppError ? `${err.code}: ${err.message}` : Promise.reject(err)),
  );

describe("parseCallBody", () => {
  it("reads a batch with its defaults and write key", () => {
    const p = parseCallBody(
      buf({
        batch: [{ type: "track" }],
        writeKey: "k",
        sentAt: "2026-11-21T15:05:50+0000",
        context: { a: 1 },
        integrations: { All: false },
      }),
      null,
    );
    expect(p).toEqual({
      writeKey: "k",
      messages: [{ type: "track" }],
      defaults: {
        context: { a: 1 },
        integrations: { All: false },
        sentAt: Date.parse("2026-11-21T15:05:50Z"),
        sentAtIso: "2026-11-21T15:05:50.000Z",
      },
      sentBytes: null,
      nonFinite: false,
    });
  });
  it("measures each message as sent when the body is over 32 KB (issue 13.3): before the server adds fields", () => {
    const big = { type: "track", userId: "u", event: "E", properties: { blob: "é".repeat(17_000) } };
    const text = `{"batch":[ ${JSON.stringify(big)} , {"type":"track"} ]}`;
    expect(parseCallBody(Buffer.from(text), null).sentBytes).toEqual([Buffer.byteLength(JSON.stringify(big)), 16]);
    expect(parseCallBody(Buffer.from(JSON.stringify(big)), "track").sentBytes).toEqual([Buffer.byteLength(JSON.stringify(big))]);
  });
  it("keeps integers beyond 2^53 exact and flags numbers past a double's range", () => {
    const p = parseCallBody(Buffer.from('{"batch":[{"userId":9007199254740993},{"properties":{"x":1e400}}]}'), null);
    expect(p.nonFinite).toBe(true);
    expect(String((p.messages[0] as { userId: unknown }).userId)).toBe("9007199254740993");
    expect(code(() => parseCallBody(Buffer.from('{"batch":[],"context":{"n":[1e400]}}'), null))).toBe(
      "invalid_body: context.n[0] is 1e400, which is not a finite number",
    );
  });
  it("treats batch null (analytics-go) and [] as empty", () => {
    expect(parseCallBody(buf({ batch: null }), null).messages).toEqual([]);
    expect(parseCallBody(buf({ batch: [] }), null).messages).toEqual([]);
  });
  it("takes a single call's body as the message, without its write key", () => {
    expect(parseCallBody(buf({ userId: "u", writeKey: "k" }), "identify")).toMatchObject({ writeKey: "k", messages: [{ userId: "u" }] });
  });
  it.each([
    ["{nope", /^invalid_json: Body is not valid JSON/],
    ["", /^invalid_json/],
    ["[1]", /^invalid_body: Body must be a JSON object, got an array/],
    ['"x"', /^invalid_body: Body must be a JSON object/],
    ["{}", /^invalid_body: Body must have a batch array/],
    ['{"batch": {}}', /^invalid_body: batch must be an array, got an object/],
    ['{"batch": [], "sentAt": "soon"}', /^invalid_body: sentAt "soon" is not a valid ISO 8601/],
    ['{"batch": [], "context": []}', /^invalid_body: context must be a JSON object/],
    [
      JSON.stringify({ batch: Array.from({ length: 2501 }, () => ({})) }),
      /^too_many_messages: Batch has 2,501 messages; the limit is 2,500 per batch/,
    ],
  ])("refuses %s", (body, expected) => {
    expect(code(() => parseCallBody(buf(body), null))).toMatch(expected);
  });
  it("takes 2,499 and exactly 2,500 messages (the limit, docs/tracking-api.md#limits)", () => {
    for (const n of [2_499, 2_500]) {
      expect(parseCallBody(buf({ batch: Array.from({ length: n }, () => ({})) }), null).messages).toHaveLength(n);
    }
  });
  it("refuses bytes that are not UTF-8", () => {
    expect(code(() => parseCallBody(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), null))).toMatch(/^invalid_utf8/);
  });
});

describe("checkContentType", () => {
  it.each([null, "application/json", "application/json; charset=utf-8", "text/plain;charset=UTF-8", "application/vnd.api+json"])(
    "accepts %s",
    (ct) => {
      expect(code(() => checkContentType(ct))).toBe("ok");
    },
  );
  it.each(["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/xml"])("refuses %s", (ct) => {
    expect(code(() => checkContentType(ct))).toMatch(/^unsupported_content_type: .*send application\/json/);
  });
});

describe("readLimitedBody", () => {
  const req = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://x/v1/batch", { method: "POST", body, headers, duplex: "half" } as RequestInit);
  it("reads a body up to 500 KB and refuses one byte more, by length or by bytes read", async () => {
    expect((await readLimitedBody(req("x".repeat(500 * 1024)))).length).toBe(500 * 1024);
    expect(await codeAsync(readLimitedBody(req("x".repeat(500 * 1024 + 1))))).toMatch(/^body_too_large: .*500 KB/);
    expect(await codeAsync(readLimitedBody(req("{}", { "content-length": "600000" })))).toMatch(/^body_too_large/);
    const stream = new ReadableStream({
      pull(c) {
        c.enqueue(new Uint8Array(64 * 1024));
      },
    });
    expect(await codeAsync(readLimitedBody(req(stream)))).toMatch(/^body_too_large/);
  });
  it("inflates gzip, within the same limit", async () => {
    expect((await readLimitedBody(req(zlib.gzipSync('{"batch":[]}'), { "content-encoding": "gzip" }))).toString()).toBe('{"batch":[]}');
    expect(await codeAsync(readLimitedBody(req(zlib.gzipSync("x".repeat(600_000)), { "content-encoding": "gzip" })))).toMatch(
      /^body_too_large/,
    );
    expect(await codeAsync(readLimitedBody(req("not gzip", { "content-encoding": "gzip" })))).toMatch(/^invalid_body: .*gzip/);
    expect(await codeAsync(readLimitedBody(req("{}", { "content-encoding": "br" })))).toMatch(/^unsupported_encoding/);
  });
});

describe("writeKeyFromAuthorization", () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString("base64")}`;
  it("reads the user name of Basic auth", () => {
    expect(writeKeyFromAuthorization(basic("abc123:"))).toBe("abc123");
    expect(writeKeyFromAuthorization(basic("abc123"))).toBe("abc123");
    expect(writeKeyFromAuthorization(basic("abc123:ignored"))).toBe("abc123");
  });
  it("finds nothing in other schemes or an empty user", () => {
    expect(writeKeyFromAuthorization(null)).toBeNull();
    expect(writeKeyFromAuthorization("Bearer abc")).toBeNull();
    expect(writeKeyFromAuthorization(basic(":pw"))).toBeNull();
  });
});
