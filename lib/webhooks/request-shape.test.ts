import { describe, expect, it } from "vitest";
import { buildPayload, serializePayload, type StoredMessage } from "./payload";
import { DEFAULT_SHAPE, prepareShape, segmentEvent, shapeRequest } from "./request-shape";

const track: StoredMessage = {
  type: "track",
  messageId: "m-1",
  userId: "u/1",
  anonymousId: null,
  timestamp: "2026-11-21T14:59:00.000Z",
  receivedAt: "2026-11-21T15:00:00.000Z",
  sentAt: null,
  payload: {
    type: "track",
    messageId: "m-1",
    userId: "u/1",
    event: "Order Completed",
    properties: { total: 30 },
    context: { ip: "1.2.3.4" },
    timestamp: "2026-11-21T14:59:00.000Z",
    receivedAt: "2026-11-21T15:00:00.000Z",
  },
};
const urls = ["https://api.example.com/users/{{userId}}", "https://b.example.com/hook"];

describe("request shape", () => {
  it("without method, mapping or templates is the seed's request, body byte for byte", () => {
    const shape = prepareShape({ method: "POST", mapping: null, urls: ["https://b.example.com/hook"] });
    expect(shape).toBe(DEFAULT_SHAPE);
    expect(shapeRequest(shape, track, ["https://b.example.com/hook"])).toEqual({
      body: serializePayload(buildPayload(track)),
      targets: [{ sendTo: "https://b.example.com/hook" }],
    });
  });

  it("maps over the stored Segment event and renders each URL's templates", () => {
    const shape = prepareShape({ method: "PUT", mapping: { "@path": "$." }, urls });
    expect(shape.method).toBe("PUT");
    const r = shapeRequest(shape, track, urls);
    expect(r.body).toBe(JSON.stringify(track.payload));
    expect(r.targets).toEqual([{ sendTo: "https://api.example.com/users/u%2F1" }, { sendTo: "https://b.example.com/hook" }]);
  });

  it("fills the event's fields kept in columns when the stored call lacks them", () => {
    const e = segmentEvent({ ...track, anonymousId: "a", sentAt: "2026-11-21T14:59:59.000Z", payload: { event: "E" } });
    expect(e).toEqual({
      event: "E",
      type: "track",
      messageId: "m-1",
      userId: "u/1",
      anonymousId: "a",
      timestamp: "2026-11-21T14:59:00.000Z",
      receivedAt: "2026-11-21T15:00:00.000Z",
      sentAt: "2026-11-21T14:59:59.000Z",
    });
  });

  it("keeps a delete notice's own body whatever the mapping, so receivers recognise it", () => {
    const del: StoredMessage = { ...track, type: "delete", payload: null };
    const shape = prepareShape({ method: "POST", mapping: { id: { "@path": "$.messageId" } }, urls });
    expect(shapeRequest(shape, del, urls).body).toBe(serializePayload(buildPayload(del)));
  });

  it("an empty template or a mapping that cannot apply is a reason per URL, never a half-built request", () => {
    const anon = { ...track, userId: null, payload: { ...track.payload, userId: undefined } };
    const templated = shapeRequest(prepareShape({ urls }), anon, urls);
    expect(templated.targets).toEqual([
      { error: "URL template {{userId}} rendered empty for this event: not sent" },
      { sendTo: "https://b.example.com/hook" },
    ]);
    const broken = shapeRequest(prepareShape({ mapping: { x: { "@path": { "@path": "$.properties.total" } } }, urls }), track, urls);
    expect(broken.targets).toEqual([
      { error: "mapping could not be applied to this event: @path: expected string, got number; not sent" },
      { error: "mapping could not be applied to this event: @path: expected string, got number; not sent" },
    ]);
    const nothing = shapeRequest(prepareShape({ mapping: { "@path": "$.nope" }, urls }), track, urls);
    expect(nothing.targets[0]).toEqual({
      error: "mapping could not be applied to this event: it gave no body (its top-level directive found nothing); not sent",
    });
  });
});
