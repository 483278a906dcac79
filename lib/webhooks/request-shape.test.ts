import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExact } from "../platform/exact-json";
import type { FieldLists } from "../routing/field-lists";
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

describe("numbers (docs/webhooks.md#numbers), for generated events and every shape", () => {
  // A JSON value whose integers reach far beyond 2^53, written as a client writes it.
  const jsonText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small" },
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
      fc.string().map((s) => JSON.stringify(s)),
      fc.constantFrom("true", "null", '"9007199254740993"'),
      fc.array(tie("v"), { maxLength: 4 }).map((a) => `[${a.join(",")}]`),
      fc.dictionary(fc.constantFrom("a", "b", "id", "2", "n"), tie("v"), { maxKeys: 4 }).map(
        (o) =>
          `{${Object.entries(o)
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(",")}}`,
      ),
    ),
  })).v;
  const shapes: { name: string; stored: Parameters<typeof prepareShape>[0]; lists?: FieldLists }[] = [
    { name: "seed", stored: {} },
    { name: "seed with a drop list", stored: {}, lists: { drop: ["properties.a"], allow: [] } },
    { name: "mapping $.", stored: { mapping: { "@path": "$." } } },
    { name: "mapping of fields", stored: { mapping: { p: { "@path": "$.properties" }, x: [{ "@path": "$.properties.id" }, 1] } } },
    { name: "URL template", stored: { urls: ["https://h.example/{{userId}}"] } },
  ];

  it("canonical bodies equal JSON.stringify(JSON.parse(body)); exact ones keep every digit; none holds an object for a number", () => {
    fc.assert(
      fc.property(jsonText, fc.constantFrom(...shapes), fc.constantFrom("canonical", "exact"), (props, s, numbers) => {
        const text = stringifyExact(parseExactJson(`{"type":"track","event":"E","properties":${props},"context":{"n":${props}}}`).value);
        const message: StoredMessage = { ...track, payloadText: text, payload: parseExactJson(text).value as Record<string, unknown> };
        const u = s.stored.urls ?? ["https://b.example.com/hook"];
        const { body } = shapeRequest(prepareShape({ ...s.stored, urls: u, numbers }), message, u, s.lists);
        expect(body).not.toContain('"literal":');
        if (numbers === "canonical") {
          expect(body).toBe(JSON.stringify(JSON.parse(body)));
          if (s.name !== "mapping of fields") expect(body).toContain(JSON.stringify(JSON.parse(text).context));
        } else {
          const exact = stringifyExact((parseExactJson(text).value as { context: unknown }).context);
          if (s.name !== "mapping of fields") expect(body).toContain(exact);
        }
      }),
      { seed: 4701, numRuns: 1500 },
    );
  });

  it("an integer beyond 2^53 goes out as JavaScript writes it by default, with its digits in exact mode", () => {
    const text = '{"type":"track","event":"E","properties":{"orderId":9007199254740993}}';
    const message: StoredMessage = { ...track, payloadText: text, payload: parseExactJson(text).value as Record<string, unknown> };
    const u = ["https://b.example.com/hook"];
    for (const mapping of [null, { "@path": "$." }]) {
      expect(shapeRequest(prepareShape({ mapping, urls: u }), message, u).body).toContain('"orderId":9007199254740992');
      expect(shapeRequest(prepareShape({ mapping, urls: u, numbers: "exact" }), message, u).body).toContain('"orderId":9007199254740993');
    }
  });
});
