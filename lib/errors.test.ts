import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, STATUS_BY_CODE, fieldErrorsFromIssues } from "./errors";

describe("errors", () => {
  it("keys zod issues by their dotted path, gathering several per field", () => {
    const schema = z.object({ urls: z.array(z.string().url("Invalid URL")).max(5), name: z.string().min(1, "Required") });
    const parsed = schema.safeParse({ urls: ["https://ok.example", "nope"], name: "" });
    expect(parsed.success).toBe(false);
    expect(fieldErrorsFromIssues(parsed.error!.issues)).toEqual({ "urls.1": ["Invalid URL"], name: ["Required"] });
  });

  it("maps every code to the status the API contract names", () => {
    expect(STATUS_BY_CODE).toMatchObject({ bad_request: 400, unauthorized: 401, not_found: 404, conflict: 409, validation_failed: 422, internal: 500 });
    const err = new AppError("validation_failed", "bad", { name: ["Required"] });
    expect(err).toBeInstanceOf(Error);
    expect(err.fields).toEqual({ name: ["Required"] });
  });
});
