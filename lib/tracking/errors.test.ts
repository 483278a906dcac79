import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./errors";

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
  ])("is true for %j", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
  it.each([[{ code: "42P01", message: "relation does not exist" }], [{ code: "23505" }], [new TypeError("x is undefined")], [null], ["string"]])("is false for %j", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
