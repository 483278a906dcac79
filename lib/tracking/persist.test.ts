import { describe, expect, it } from "vitest";
import { normaliseMessage, type NormalisedMessage } from "./normalise";
import { recordsetJson } from "./persist";

const now = Date.parse("2026-11-21T15:00:00Z");
function normalised(raw: object): NormalisedMessage {
  const r = normaliseMessage({
    raw,
    index: 0,
    endpointType: null,
    defaults: { context: null, integrations: null, sentAt: null, sentAtIso: null },
    receivedAt: { ms: now, iso: new Date(now).toISOString() },
    sentBytes: null,
    newMessageId: () => "gen",
  });
  if (!r.ok) throw new Error(r.rejection.reason);
  return r.message;
}

describe("recordsetJson", () => {
  it("is the JSON of the rows, with each payload embedded as serialized", () => {
    const a = normalised({
      type: "track",
      userId: 'quote " and \\ backslash',
      event: "E\u2028",
      properties: { n: 1 },
      timestamp: "2026-11-21T14:00:00Z",
    });
    const b = normalised({ type: "identify", anonymousId: "anon", traits: { ü: ["x"] } });
    const rows = JSON.parse(
      recordsetJson([
        { rowId: "r1", message: a },
        { rowId: "r2", message: b },
      ]),
    );
    expect(rows).toEqual([
      {
        i: "r1",
        m: "gen",
        t: "track",
        u: 'quote " and \\ backslash',
        a: null,
        e: "E\u2028",
        ts: a.timestamp,
        ot: "2026-11-21T14:00:00.000Z",
        sa: null,
        p: a.payload,
      },
      { i: "r2", m: "gen", t: "identify", u: null, a: "anon", e: null, ts: b.timestamp, ot: null, sa: null, p: b.payload },
    ]);
  });

  it("writes every id and name exactly as JSON.stringify does, escapes and all", () => {
    const tricky = [
      "plain",
      'q"uote',
      "back\\slash",
      "tab\t",
      "nl\n",
      "nul\u0000",
      "del\u007f",
      "ls\u2028",
      "emoji 😀",
      "é",
      "",
      "lone \ud800",
    ];
    for (const v of tricky) {
      const m = { ...normalised({ type: "track", userId: "u", event: "e" }), userId: v, event: v, messageId: v };
      const json = recordsetJson([{ rowId: "r", message: m }]);
      const s = JSON.stringify(v);
      expect(json, JSON.stringify(v)).toContain(`"m":${s},"t":"track","u":${s},"a":null,"e":${s},`);
    }
  });
});
