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

  it("defaults to EVENTRAIL_URL, else localhost on PORT, else localhost:3000; --endpoint wins", () => {
    const argv = ["track", "--event", "E", "--user", "u", "--write-key", "wk"];
    expect(parseSendArgs(argv).endpoint).toBe("http://localhost:3000");
    expect(parseSendArgs(argv, { PORT: "4100" }).endpoint).toBe("http://localhost:4100");
    expect(parseSendArgs(argv, { PORT: "4100", EVENTRAIL_URL: "https://events.example.com/" }).endpoint).toBe("https://events.example.com");
    expect(parseSendArgs([...argv, "--endpoint", "http://h:1"], { PORT: "4100" }).endpoint).toBe("http://h:1");
  });

  it.each([[["--help"]], [["-h"]], [["track", "--help"]], [["track", "--user", "u", "-h"]]])("%j asks for the usage", (argv) => {
    expect(() => parseSendArgs(argv)).toThrow(/^help$/);
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
