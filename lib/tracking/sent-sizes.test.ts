import { describe, expect, it } from "vitest";
import { sentBatchMessageBytes } from "./sent-sizes";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("sentBatchMessageBytes", () => {
  it("measures each batch element as it appears in the body, whitespace and escapes included", () => {
    const a = '{"type":"track","event":"a]}\\"{,","userId":"é"}';
    const b = '{ "type" : "identify", "traits": {"nested": [1, {"x": "}"}]} }';
    const body = `{"sentAt":"batch","context":{"batch":[1,2]},"batch": [ ${a} ,\n${b}, 42, null, "text" ],"after":[{"a":1}]}`;
    expect(sentBatchMessageBytes(body)).toEqual([bytes(a), bytes(b), 2, 4, 6]);
  });

  it("is empty without a batch array", () => {
    expect(sentBatchMessageBytes('{"batch":null}')).toEqual([]);
    expect(sentBatchMessageBytes('{"batch":[]}')).toEqual([]);
    expect(sentBatchMessageBytes('{"x":{"batch":[{"a":1}]}}')).toEqual([]);
  });
});
