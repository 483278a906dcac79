import { describe, expect, it } from "vitest";
import { CHANGED, diffFields } from "./diff";

describe("diffFields", () => {
  it("lists only changed fields, before → after", () => {
    expect(diffFields({ name: "a", urls: ["x"], enabled: true }, { name: "b", urls: ["x"], enabled: false })).toEqual({
      name: { before: "a", after: "b" },
      enabled: { before: true, after: false },
    });
  });

  it("never writes a secret's value, only that it changed", () => {
    const d = diffFields(
      { name: "a", sharedSecret: "old-secret" },
      { name: "a", sharedSecret: "new-secret" },
      { secret: ["sharedSecret"] },
    );
    expect(d).toEqual({ sharedSecret: { before: CHANGED, after: CHANGED } });
    expect(JSON.stringify(d)).not.toMatch(/secret"?:?"?(old|new)-secret/);
  });

  it("treats a created or deleted resource as every field from or to null", () => {
    expect(diffFields(null, { name: "a" })).toEqual({ name: { before: null, after: "a" } });
    expect(diffFields({ name: "a" }, null)).toEqual({ name: { before: "a", after: null } });
  });
});
