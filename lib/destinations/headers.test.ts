import { describe, expect, it } from "vitest";
import { mergeHeaders } from "./headers";

const stored = [
  { name: "X-Api-Key", value: "key-0123456789abcdef" },
  { name: "X-Team", value: "growth" },
];

describe("mergeHeaders", () => {
  it("keeps a stored value when the patch leaves it out, matching the name in any case", () => {
    expect(mergeHeaders(stored, [{ name: "x-api-key" }, { name: "X-Team" }])).toEqual([
      { name: "x-api-key", value: "key-0123456789abcdef" },
      { name: "X-Team", value: "growth" },
    ]);
  });

  it("replaces a value that is given and removes a header set to null or left out of the list", () => {
    expect(
      mergeHeaders(stored, [
        { name: "X-Api-Key", value: "new" },
        { name: "X-Team", value: null },
      ]),
    ).toEqual([{ name: "X-Api-Key", value: "new" }]);
    expect(mergeHeaders(stored, [])).toEqual([]);
  });

  it("adds new headers, and refuses a new name without a value where it sits", () => {
    expect(mergeHeaders([], [{ name: "X-New", value: "v" }])).toEqual([{ name: "X-New", value: "v" }]);
    expect(() => mergeHeaders(stored, [{ name: "X-Team" }, { name: "X-Unknown" }])).toThrow(
      expect.objectContaining({ code: "validation_failed", fields: { "headers.1.value": [expect.stringMatching(/Enter a value/)] } }),
    );
  });
});
