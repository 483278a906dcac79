import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { writeKeyInBody } from "./body-key";

/** What parseCallBody reads as the body's key: JSON.parse's top-level writeKey, a non-empty string. */
function parsedKey(text: string): string | null {
  const body = JSON.parse(text) as unknown;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const key = (body as Record<string, unknown>).writeKey;
  return typeof key === "string" && key !== "" ? key : null;
}

describe("writeKeyInBody", () => {
  it("finds the key where JSON.parse does", () => {
    const cases = [
      '{"writeKey":"wk"}',
      '{ "batch": [{"writeKey": "inner"}], "writeKey" : "outer" }',
      '{"writeKey":"a","writeKey":"b"}',
      '{"writeKey":"a","writeKey":1}',
      '{"write\\u004bey":"escaped"}',
      '{"writeKey":"k\\"q\\\\"}',
      '{"a":"\\"writeKey\\":\\"no\\"","b":{"writeKey":"no"}}',
      '{"writeKey":""}',
      '{"writeKey":null}',
      "[]",
      '"writeKey"',
      "{}",
    ];
    for (const text of cases) expect({ text, key: writeKeyInBody(text) }).toEqual({ text, key: parsedKey(text) });
  });

  it("agrees with JSON.parse on generated bodies, however they are spaced or escaped", () => {
    const key = fc.oneof(fc.string(), fc.constant("writeKey"), fc.constant(""));
    const member = fc.tuple(fc.oneof(fc.constant("writeKey"), fc.constant("batch"), fc.string()), fc.oneof(key, fc.jsonValue()));
    const body = fc.array(member, { maxLength: 6 });
    fc.assert(
      fc.property(body, fc.boolean(), fc.boolean(), (members, spaced, escapeNames) => {
        const parts = members.map(([name, value]) => {
          let n = JSON.stringify(name);
          if (escapeNames) n = n.replace(/K/g, "\\u004b");
          return `${n}${spaced ? " :\n " : ":"}${JSON.stringify(value, null, spaced ? 2 : undefined)}`;
        });
        const text = `{${spaced ? " " : ""}${parts.join(spaced ? " ,\t" : ",")}}`;
        expect(writeKeyInBody(text)).toBe(parsedKey(text));
      }),
      { seed: 48, numRuns: 2_000 },
    );
  });

  it("scans a 400 KB body nested 200,000 deep in a few milliseconds", () => {
    const text = `{"batch":[${"[".repeat(200_000)}${"]".repeat(200_000)}]}`;
    const started = performance.now();
    expect(writeKeyInBody(text)).toBeNull();
    expect(performance.now() - started).toBeLessThan(50);
  });
});
