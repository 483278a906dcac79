import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldErrorsFromIssues } from "../api/field-errors";
import { AppError, STATUS_BY_CODE, dataExceptionMessage, isDatabaseUnavailable, postgresCodeOf } from "./errors";

describe("errors", () => {
  it("keys zod issues by their dotted path, gathering several per field", () => {
    const schema = z.object({ urls: z.array(z.string().url("Invalid URL")).max(5), name: z.string().min(1, "Required") });
    const parsed = schema.safeParse({ urls: ["https://ok.example", "nope"], name: "" });
    expect(parsed.success).toBe(false);
    expect(fieldErrorsFromIssues(parsed.error!.issues)).toEqual({ "urls.1": ["Invalid URL"], name: ["Required"] });
  });

  it("maps every code to the status the API contract names", () => {
    expect(STATUS_BY_CODE).toMatchObject({
      bad_request: 400,
      unauthorized: 401,
      not_found: 404,
      conflict: 409,
      validation_failed: 422,
      internal: 500,
    });
    // The Tracking API's refusals keep Segment's statuses (docs/tracking-api.md#responses): 400 even for an oversized body.
    expect(STATUS_BY_CODE).toMatchObject({ invalid_json: 400, body_too_large: 400, too_many_messages: 400, unavailable: 503 });
    const err = new AppError("validation_failed", "bad", { name: ["Required"] });
    expect(err).toBeInstanceOf(Error);
    expect(err.fields).toEqual({ name: ["Required"] });
  });
});

describe("isDatabaseUnavailable", () => {
  it.each([
    [{ code: "ECONNREFUSED" }],
    [{ code: "57P01", message: "terminating connection due to administrator command" }],
    [{ code: "57P03", message: "the database system is starting up" }],
    [{ code: "08006" }],
    [{ code: "40P01", message: "deadlock detected" }],
    [new Error("timeout exceeded when trying to connect")],
    [new Error("Connection terminated unexpectedly")],
    [{ message: "wrapped", cause: { code: "ECONNRESET" } }],
    [{ message: "AggregateError", errors: [{ code: "ECONNREFUSED" }] }],
    // Prisma (driver adapter pg): "Can't reach database server", and a Postgres shutdown kept in meta.
    [{ name: "PrismaClientKnownRequestError", code: "P1001", meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } } }],
    [{ name: "PrismaClientKnownRequestError", code: "P2024", message: "Timed out fetching a new connection from the connection pool" }],
    [{ name: "PrismaClientUnknownRequestError", meta: { driverAdapterError: { cause: { kind: "postgres", code: "57P01" } } } }],
  ])("is true for %j", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
  it.each([
    [{ code: "42P01", message: "relation does not exist" }],
    [{ code: "23505" }],
    [{ code: "P2002", meta: { driverAdapterError: { cause: { kind: "UniqueConstraintViolation" } } } }],
    [new TypeError("x is undefined")],
    [null],
    ["string"],
  ])("is false for %j", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe("data exceptions", () => {
  // The shapes pg and Prisma's driver adapter throw, trimmed to what the mapping reads.
  const pgError = (code: string) => Object.assign(new Error("pg says no"), { code, severity: "ERROR" });
  const prismaError = (code: string) =>
    Object.assign(new Error("Invalid `prisma.source.create()` invocation"), {
      code: "P2010",
      meta: { driverAdapterError: Object.assign(new Error("postgres"), { cause: { kind: "postgres", originalCode: code } }) },
    });

  it("finds the SQLSTATE in pg's error and under Prisma's", () => {
    expect(postgresCodeOf(pgError("22021"))).toBe("22021");
    expect(postgresCodeOf(prismaError("54000"))).toBe("54000");
    expect(postgresCodeOf(new Error("plain"))).toBeUndefined();
    expect(postgresCodeOf({ code: "P2002" })).toBeUndefined();
  });

  it("turns class 22 and 54000 into a message for the caller, and nothing else", () => {
    for (const code of ["22P02", "22021", "22008", "22003", "22001", "54000", "22P05", "2200D"]) {
      expect(dataExceptionMessage(pgError(code)), code).toMatch(/./);
      expect(dataExceptionMessage(prismaError(code)), code).toMatch(/./);
    }
    expect(dataExceptionMessage(pgError("22021"))).toMatch(/NUL/);
    for (const code of ["23505", "23503", "42P01", "08006", "40001"]) expect(dataExceptionMessage(pgError(code)), code).toBeNull();
    expect(dataExceptionMessage(new TypeError("x is undefined"))).toBeNull();
  });
});
