import { describe, expect, it } from "vitest";
import type { QueuedMessage } from "./message";
import { describeHttpError, splitRejections } from "./send-batch";

const m = (id: string): QueuedMessage => ({ messageId: id, type: "track", json: `{"messageId":"${id}"}`, bytes: 10 });

describe("reading the Tracking API's answers", () => {
  it("finds rejected messages by index, or by messageId when the index disagrees", () => {
    const batch = [m("a"), m("b"), m("c"), m("d")];
    const body = JSON.stringify({
      success: true,
      rejected: [
        { index: 1, messageId: "b", reason: "track requires an event name" },
        { index: 0, messageId: "d", reason: "messageId wins" },
        { index: 2, messageId: null, reason: "no messageId: the index decides" },
      ],
    });
    const { accepted, rejected, rejections } = splitRejections(batch, body);
    expect(accepted.map((x) => x.messageId)).toEqual(["a"]);
    expect(rejected.map((x) => x.messageId)).toEqual(["b", "c", "d"]);
    expect(rejections).toEqual([
      { messageId: "b", reason: "track requires an event name" },
      { messageId: "c", reason: "no messageId: the index decides" },
      { messageId: "d", reason: "messageId wins" },
    ]);
  });

  it("treats a plain success, or a body that is not JSON, as all accepted", () => {
    expect(splitRejections([m("a")], '{"success":true}').accepted).toHaveLength(1);
    expect(splitRejections([m("a")], "OK").accepted).toHaveLength(1);
  });

  it("describes errors with the server's message when it has one", () => {
    expect(describeHttpError({ status: 400, body: '{"success":false,"error":{"code":"too_large","message":"body is over 500 KB"}}' })).toBe(
      "HTTP 400: body is over 500 KB",
    );
    expect(describeHttpError({ status: 502, body: "<html>Bad Gateway</html>" })).toBe("HTTP 502: <html>Bad Gateway</html>");
    expect(describeHttpError({ status: 503, body: "" })).toBe("HTTP 503");
  });
});
