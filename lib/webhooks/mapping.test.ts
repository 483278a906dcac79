import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExact } from "../platform/exact-json";
import { checkMapping, compileMapping, MappingError, MAPPING_LIMITS } from "./mapping";

// Every expected body below is what @segment/actions-core 3.170.0's transform() gives for the same
// mapping and event (checked side by side: docs/decisions/0070-body-mapping.md).
const event = {
  type: "track",
  messageId: "m-1",
  userId: "u1",
  event: "Order Completed",
  properties: {
    total: 42.5,
    zero: 0,
    empty: "",
    arr: [],
    "odd key": "x",
    products: [
      { sku: "a", price: 1 },
      { sku: "b", price: 2 },
    ],
    single: { sku: "s" },
  },
  context: { ip: "1.2.3.4" },
  traits: { email: "x@y.z", name: "Ann" },
};
const map = (m: unknown) => JSON.stringify(compileMapping(m)(event));
const mapText = (json: string) => map(JSON.parse(json));

describe("compileMapping: Segment's semantics", () => {
  it('@path "$." is the whole event, in its key order (the Webhooks (Actions) Data default), at any level', () => {
    expect(map({ "@path": "$." })).toBe(JSON.stringify(event));
    expect(map({ data: { "@path": "$." } })).toBe(JSON.stringify({ data: event }));
    expect(compileMapping({ "@path": "$.nope" })(event)).toBeUndefined();
  });

  it("@path reads dotted, indexed and quoted paths; absent fields leave the key out", () => {
    expect(
      map({
        a: { "@path": "$.properties.total" },
        b: { "@path": "$.properties.missing" },
        c: { "@path": "properties.products[1].sku" },
        d: { "@path": "$.properties['odd key']" },
        e: { "@path": "$.properties.products.0.price" },
      }),
    ).toBe('{"a":42.5,"c":"b","d":"x","e":1}');
  });

  it("keeps Segment's walk quirks: a falsy value stops the walk and is the result; prototypes are not reached", () => {
    expect(map({ z: { "@path": "$.properties.zero.x" }, s: { "@path": "$.event.length" }, p: { "@path": "$.constructor" } })).toBe(
      '{"z":0,"s":15}',
    );
  });

  it("@template fills {{ }} and {{{ }}} with String(value), nothing for absent ones", () => {
    expect(
      map({
        t: { "@template": "Hi {{ traits.name }} ({{{userId}}}) {{missing}}!" },
        t3: { "@template": "{{properties.products}}|{{properties.zero}}|{{properties.single}}" },
      }),
    ).toBe('{"t":"Hi Ann (u1) !","t3":"[object Object],[object Object]|0|[object Object]"}');
  });

  it("@if: exists is null/undefined-only; blank is Segment's loose != '' (0 and [] are blank); else only when truthy", () => {
    expect(
      // As JSON text, the way a mapping is pasted (an object literal with a `then` key reads as a thenable to the linter).
      mapText(`{
        "e1": {"@if": {"exists": {"@path": "$.context.ip"}, "then": {"@path": "$.context.ip"}, "else": "none"}},
        "e2": {"@if": {"exists": {"@path": "$.context.nope"}, "then": "yes", "else": "no"}},
        "e3": {"@if": {"exists": {"@path": "$.context.nope"}, "then": "yes"}},
        "e4": {"@if": {"exists": {"@path": "$.properties.zero"}, "then": "zero exists"}},
        "e5": {"@if": {"exists": {"@path": "$.nope"}, "then": 1, "else": 0}},
        "b1": {"@if": {"blank": {"@path": "$.properties.empty"}, "then": "set", "else": "blank"}},
        "b2": {"@if": {"blank": {"@path": "$.properties.zero"}, "then": "set", "else": "blank"}},
        "b3": {"@if": {"blank": {"@path": "$.properties.arr"}, "then": "set", "else": "blank"}},
        "b4": {"@if": {"blank": {"@path": "$.userId"}, "then": "set", "else": "blank"}}
      }`),
    ).toBe('{"e1":"1.2.3.4","e2":"no","e4":"zero exists","b1":"blank","b2":"blank","b3":"blank","b4":"set"}');
  });

  it("@arrayPath maps each item, wraps a single object, passes through without a shape or a root", () => {
    expect(
      map({
        items: { "@arrayPath": ["$.properties.products", { id: { "@path": "$.sku" }, lit: "x" }] },
        raw: { "@arrayPath": ["$.properties.products"] },
        one: { "@arrayPath": ["$.properties.single", { id: { "@path": "$.sku" } }] },
        none: { "@arrayPath": ["$.properties.nothing", { id: { "@path": "$.sku" } }] },
        viaDirective: { "@arrayPath": [{ "@path": "$.properties.products" }, { p: { "@path": "$.price" } }] },
      }),
    ).toBe(
      '{"items":[{"id":"a","lit":"x"},{"id":"b","lit":"x"}],"raw":[{"sku":"a","price":1},{"sku":"b","price":2}],' +
        '"one":[{"id":"s"}],"viaDirective":[{"p":1},{"p":2}]}',
    );
  });

  it("literals, nesting, arrays (absent items become null), @literal and _metadata", () => {
    expect(
      map({
        n: 1,
        s: "str",
        nil: null,
        arr: [{ "@path": "$.nope" }, { "@path": "$.userId" }],
        nest: { deep: { x: { "@path": "$.traits.name" } } },
        l: { "@literal": "kept" },
        meta: { "@path": "$.userId", _metadata: { label: "User" } },
      }),
    ).toBe('{"n":1,"s":"str","nil":null,"arr":[null,"u1"],"nest":{"deep":{"x":"Ann"}},"l":"kept","meta":"u1"}');
  });

  it("a directive whose argument resolves to a non-string fails the event with Segment's message", () => {
    expect(() => compileMapping({ x: { "@path": { "@path": "$.properties.total" } } })(event)).toThrow(MappingError);
    expect(() => compileMapping({ x: { "@path": { "@path": "$.properties.total" } } })(event)).toThrow(
      "@path: expected string, got number",
    );
  });
});

describe("checkMapping", () => {
  const where = (m: unknown) => checkMapping(m).map((i) => `${i.path.join(".")}: ${i.message}`);

  it("accepts Segment's default and a richer mapping", () => {
    expect(checkMapping({ "@path": "$." })).toEqual([]);
    expect(checkMapping({ data: { "@path": "$." } })).toEqual([]);
    expect(
      checkMapping({
        email: JSON.parse(
          '{"@if": {"exists": {"@path": "$.traits.email"}, "then": {"@path": "$.traits.email"}, "else": {"@path": "$.context.traits.email"}}}',
        ),
        items: { "@arrayPath": ["$.properties.products", { sku: { "@path": "$.sku" } }] },
        greeting: { "@template": "Hi {{traits.name}}" },
        meta: { "@literal": { a: 1 } },
      }),
    ).toEqual([]);
  });

  it("refuses each problem at its place, with the reason", () => {
    expect(
      where({
        a: { "@path": 3 },
        b: JSON.parse('{"@if": {"then": "x"}}'),
        c: { "@arrayPath": "$.x" },
        d: { "@case": { operator: "upper", value: "x" } },
        e: { "@nope": "x" },
        f: { "@path": "$.a", "@template": "b" },
        g: [{ ok: { "@template": ["x"] } }],
        h: { "@if": { exists: { "@path": "$.a" }, when: 1 } },
      }),
    ).toEqual([
      "a.@path: Should be a string or a mapping directive, not a number",
      'b.@if: @if needs an exists or a blank key (a directive such as {"@path": "$.userId"})',
      'c.@arrayPath: @arrayPath takes [path, item mapping], like ["$.properties.products", {"id": {"@path": "$.sku"}}]',
      "d.@case: @case is a Segment directive Eventrail does not support; supported: @path, @template, @if, @arrayPath, @literal",
      "e.@nope: @nope is not a mapping directive; supported: @path, @template, @if, @arrayPath, @literal",
      "f: A directive object has one @-prefixed key and nothing else; this one has @path, @template",
      "g.0.ok.@template: Should be a string or a mapping directive, not an array",
      "h.@if.when: @if takes only exists, blank, then and else",
    ]);
  });

  it("refuses a top level that is not an object, a whole pasted subscription, and mappings past the limits", () => {
    expect(where([1])[0]).toMatch(/^: A mapping is a JSON object/);
    expect(where("$.")[0]).toMatch(/^: A mapping is a JSON object/);
    expect(where({ url: "https://x.example", method: "POST", data: { "@path": "$." } })).toEqual([
      ": This is a whole Segment subscription: paste its data field here, and set its url and method above",
    ]);
    expect(where({ x: "y".repeat(MAPPING_LIMITS.bytes) })).toEqual([": At most 16 KB of JSON"]);
    let deep: unknown = 1;
    for (let i = 0; i < MAPPING_LIMITS.depth + 2; i++) deep = { a: deep };
    expect(where(deep)[0]).toMatch(/Nested more than 20 levels deep$/);
  });
});

describe("templates: one pass", () => {
  it("never reads an inserted value as a template, whatever it holds", () => {
    const data = { properties: { note: "{{properties.big}}{{{properties.big}}}", big: "x".repeat(1000) } };
    const run = (m: unknown) => compileMapping(m)(data) as Record<string, unknown>;
    expect(run({ n: { "@template": "{{{properties.note}}}" } })).toEqual({ n: data.properties.note });
    expect(run({ n: { "@template": "{{properties.note}}!" } })).toEqual({ n: `${data.properties.note}!` });
  });

  it("a rendered template is as long as its text and values, for generated event text (no expansion)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("{", "}", "a", ".", " ", "p") }), fc.string(), (note, other) => {
        const data = { p: { note, other } };
        const out = compileMapping({ "@template": "[{{{p.note}}}|{{p.other}}]" })(data);
        expect(out).toBe(`[${note}|${other}]`);
      }),
      { seed: 4747, numRuns: 3000 },
    );
  });
});

describe("numbers kept with their digits (exact-json.ts)", () => {
  it("an ExactInteger is a value a mapping copies whole, never an object it rebuilds", () => {
    const { value } = parseExactJson('{"properties":{"orderId":9007199254740993,"list":[9007199254740995]}}');
    const body = (m: unknown) => stringifyExact(compileMapping(m)(value as Record<string, unknown>));
    expect(body({ "@path": "$." })).toBe('{"properties":{"orderId":9007199254740993,"list":[9007199254740995]}}');
    expect(body({ id: { "@path": "$.properties.orderId" }, all: { "@path": "$.properties.list" } })).toBe(
      '{"id":9007199254740993,"all":[9007199254740995]}',
    );
    expect(body({ id: { "@path": "$.properties.orderId.literal" } })).toBe("{}");
    expect(body({ t: { "@template": "#{{properties.orderId}}" } })).toBe('{"t":"#9007199254740993"}');
    expect(body({ x: { "@arrayPath": ["$.properties.orderId", { a: { "@path": "$.b" } }] } })).toBe('{"x":9007199254740993}');
  });
});

describe("bounded output (MAPPING_LIMITS.bodyBytes)", () => {
  const big = { properties: { s: "x".repeat(32 * 1024) } };
  it("refuses a mapping that multiplies the event past 1 MB, cheaply, with a reason", () => {
    const copies = compileMapping({ list: Array.from({ length: 400 }, () => ({ "@path": "$." })) });
    expect(() => copies(big)).toThrow(new MappingError("it gives a body larger than 1 MB for this event"));
    const template = compileMapping({ t: { "@template": "{{properties.s}}".repeat(40) } });
    expect(() => template(big)).toThrow(new MappingError("@template: it renders more than 1 MB for this event"));
  });
  it("keeps a body under the limit whole", () => {
    const copies = compileMapping({ list: Array.from({ length: 20 }, () => ({ "@path": "$." })) });
    expect(JSON.stringify(copies(big)).length).toBeGreaterThan(20 * 32 * 1024);
  });
});

describe("checkMapping: numbers", () => {
  it("refuses an integer literal beyond 2^53, whose digits would be lost when saved", () => {
    expect(checkMapping(JSON.parse('{"id": {"@literal": 9007199254740993}, "ok": 9007199254740991}'))).toEqual([
      {
        path: ["id", "@literal"],
        message: "An integer beyond 2^53 loses digits when saved: write it as a string, or read it from the event with @path",
      },
    ]);
  });
});
