import { describe, expect, it } from "vitest";
import { parseSendArgs } from "./send-args";

describe("npm run send arguments", () => {
  it("maps flags onto the message and the client", () => {
    expect(
      parseSendArgs([
        "track",
        "--user",
        "u1",
        "--event",
        "Signed Up",
        "--props",
        '{"plan":"pro"}',
        "--integrations",
        '{"All":false}',
        "--write-key",
        "wk",
        "--endpoint",
        "http://h:1",
        "-n",
        "3",
      ]),
    ).toEqual({
      type: "track",
      params: { userId: "u1", event: "Signed Up", properties: { plan: "pro" }, integrations: { All: false } },
      endpoint: "http://h:1",
      writeKey: "wk",
      count: 3,
    });
    expect(parseSendArgs(["alias", "--user", "u", "--previous", "a", "--write-key", "wk"])).toMatchObject({
      params: { userId: "u", previousId: "a" },
      endpoint: "http://localhost:3000",
      count: 1,
    });
  });

  it.each([
    [[], "a message type is required"],
    [["trak"], 'unknown message type "trak"'],
    [["track", "--user"], "--user needs a value"],
    [["track", "--user", "--event", "E"], "--user needs a value"],
    [["track", "--props", "{nope", "--write-key", "k"], "--props is not valid JSON"],
    [["track", "--traits", "[1]", "--write-key", "k"], "--traits must be a JSON object"],
    [["track", "-n", "0", "--write-key", "k"], "-n must be an integer from 1 to 1000000"],
    [["track", "--colour", "red"], "unknown option --colour"],
    [["track", "--user", "u"], "--write-key is required"],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseSendArgs(argv)).toThrow(message);
  });
});
