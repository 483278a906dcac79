import { describe, expect, it } from "vitest";
import { normaliseMessage, type NormalisedMessage } from "./normalise";
import { JSON_SEPARATOR as PAYLOAD_SEPARATOR, textArray } from "../platform/pg-arrays";
import { messageColumns } from "./produce";

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

/** Postgres' array-literal reading of a one-dimensional text[] (array_in), enough for what textArray writes. */
function readArrayLiteral(literal: string): (string | null)[] {
  expect(literal.startsWith("{") && literal.endsWith("}")).toBe(true);
  const out: (string | null)[] = [];
  let i = 1;
  while (i < literal.length - 1) {
    if (literal.startsWith("NULL", i)) {
      out.push(null);
      i += 4;
    } else {
      expect(literal[i]).toBe('"');
      let v = "";
      i++;
      // Bounded by the literal's end, so that a missing closing quote fails instead of looping forever.
      while (i < literal.length && literal[i] !== '"') {
        if (literal[i] === "\\") i++;
        v += literal[i++];
      }
      expect(literal[i]).toBe('"');
      out.push(v);
      i++;
    }
    if (literal[i] === ",") i++;
  }
  return out;
}

describe("messageColumns", () => {
  it("is one array per column, in row order, and the payloads as serialized, separated", () => {
    const a = normalised({
      type: "track",
      userId: 'quote " and \\ backslash',
      event: "E\u2028",
      properties: { n: 1 },
      timestamp: "2026-11-21T14:00:00Z",
    });
    const b = normalised({ type: "identify", anonymousId: "anon", traits: { ü: ["x"] } });
    const c = messageColumns([
      { rowId: "r1", message: a },
      { rowId: "r2", message: b },
    ]);
    expect(c.id).toBe("{r1,r2}");
    expect(readArrayLiteral(c.message_id)).toEqual(["gen", "gen"]);
    expect(readArrayLiteral(c.type)).toEqual(["track", "identify"]);
    expect(readArrayLiteral(c.user_id)).toEqual(['quote " and \\ backslash', null]);
    expect(readArrayLiteral(c.anonymous_id)).toEqual([null, "anon"]);
    expect(readArrayLiteral(c.event)).toEqual(["E\u2028", null]);
    expect(c.timestamp).toBe(`{${a.timestamp},${b.timestamp}}`);
    expect(c.original_timestamp).toBe("{2026-11-21T14:00:00.000Z,NULL}");
    expect(c.sent_at).toBe("{NULL,NULL}");
    expect(c.payload.split(PAYLOAD_SEPARATOR).map((p) => JSON.parse(p))).toEqual([a.payload, b.payload]);
    // not judged by a tracking plan: no violations, blocked left to the column's default (false)
    expect(c.violations).toBe(PAYLOAD_SEPARATOR);
    expect(c.blocked).toBe("{NULL,NULL}");
  });

  it("quotes every text so that Postgres reads it back exactly, whatever it holds", () => {
    const tricky = [
      "plain",
      'q"uote',
      "back\\slash",
      '\\"',
      "tab\t",
      "nl\n",
      "del\u007f",
      "ls\u2028",
      "emoji 😀",
      "é",
      "",
      "NULL",
      "a,b",
      "{x}",
      " sp ",
    ];
    expect(readArrayLiteral(textArray(tricky))).toEqual(tricky);
    expect(readArrayLiteral(textArray([null, "NULL", null]))).toEqual([null, "NULL", null]);
  });

  it("never finds the separator inside a payload: JSON.stringify escapes control characters", () => {
    const m = normalised({ type: "track", userId: "u\u001e", event: "e", properties: { s: "a\u001eb" } });
    expect(m.payloadJson.includes(PAYLOAD_SEPARATOR)).toBe(false);
    expect(JSON.parse(m.payloadJson).properties.s).toBe("a\u001eb");
  });
});
