import { describe, expect, it } from "vitest";
import { compileAudienceQuery } from "./compile";
import { audienceConditionSchema, type Condition } from "./condition";

const WS = "00000000-0000-0000-0000-0000000000aa";
const SRC = ["00000000-0000-0000-0000-0000000000bb"];
const compile = (c: Condition) => compileAudienceQuery(audienceConditionSchema.parse(c), { workspaceId: WS, sourceIds: SRC });
const norm = (s: string) => s.replace(/\s+/g, " ");

describe("compileAudienceQuery: trait operators", () => {
  it("equals compares the JSON value or its text form, both as parameters", () => {
    const q = compile({ trait: "plan", op: "equals", value: "pro" });
    expect(q.values).toEqual([WS, "plan", '"pro"', "pro", SRC]);
    expect(norm(q.text)).toBe(
      "SELECT s.user_id FROM (SELECT p.user_id FROM profiles p WHERE p.workspace_id = $1::uuid AND " +
        "(coalesce(((p.traits -> $2::text) = $3::jsonb OR (p.traits ->> $2::text) = $4::text), false))) s" +
        " WHERE (EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = $1::uuid AND m.user_id = s.user_id AND m.source_id = ANY($5::uuid[]))" +
        " OR EXISTS (SELECT 1 FROM identity_links il JOIN messages m ON m.workspace_id = il.workspace_id AND m.anonymous_id = il.anonymous_id" +
        " WHERE il.workspace_id = $1::uuid AND il.user_id = s.user_id AND m.user_id IS NULL AND m.source_id = ANY($5::uuid[])))",
    );
  });

  it("not_equals is the negation of equals, true when the trait is missing", () => {
    const q = compile({ trait: "plan", op: "not_equals", value: 3 });
    expect(q.values.slice(1)).toEqual(["plan", "3", "3", SRC]);
    expect(q.text).toContain("NOT coalesce(((p.traits -> $2::text) = $3::jsonb OR (p.traits ->> $2::text) = $4::text), false)");
  });

  it("exists / not_exists treat a JSON null like a missing trait and take no value", () => {
    const e = compile({ trait: "vip", op: "exists" });
    expect(e.values.slice(1)).toEqual(["vip", SRC]);
    expect(e.text).toContain("coalesce(jsonb_typeof((p.traits -> $2::text)), 'null') <> 'null'");
    const n = compile({ trait: "vip", op: "not_exists" });
    expect(n.text).toContain("coalesce(jsonb_typeof((p.traits -> $2::text)), 'null') = 'null'");
  });

  it("contains checks array elements or a case-insensitive substring", () => {
    const q = compile({ trait: "email", op: "contains", value: "@Example.com" });
    expect(q.values.slice(1)).toEqual(["email", '"@Example.com"', "@Example.com", SRC]);
    expect(q.text).toContain(
      "WHEN jsonb_typeof((p.traits -> $2::text)) = 'array' THEN (p.traits -> $2::text) @> jsonb_build_array($3::jsonb)",
    );
    expect(q.text).toContain("strpos(lower((p.traits ->> $2::text)), lower($4::text)) > 0");
  });

  it.each([
    ["gt", ">"],
    ["gte", ">="],
    ["lt", "<"],
    ["lte", "<="],
  ] as const)("%s compares numerically when the value is a number", (op, sym) => {
    const q = compile({ trait: "age", op, value: 30 });
    expect(q.values.slice(1)).toEqual(["age", "30", SRC]);
    expect(q.text).toContain(`END END) ${sym} $3::numeric`);
    expect(q.text).toContain("WHEN 'number' THEN ((p.traits -> $2::text))::numeric");
  });

  it("a numeric string compares numerically, another text compares as text", () => {
    expect(compile({ trait: "age", op: "gt", value: "30" }).text).toContain("$3::numeric");
    const d = compile({ trait: "signed_up", op: "gte", value: "2026-01-01" });
    expect(d.values.slice(1)).toEqual(["signed_up", "2026-01-01", SRC]);
    expect(d.text).toContain("(jsonb_typeof((p.traits -> $2::text)) = 'string' AND (p.traits ->> $2::text) >= $3::text)");
  });
});

describe("compileAudienceQuery: events and groups", () => {
  it("an event condition counts the sources' track calls in the window, anonymous ones joined to their user", () => {
    const q = compile({ event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] });
    expect(q.values).toEqual([WS, SRC, "Order Completed", 30, "total", "100", 3]);
    const t = norm(q.text);
    expect(t).toContain("m.workspace_id = $1::uuid AND m.source_id = ANY($2::uuid[]) AND m.type = 'track' AND m.event = $3::text");
    expect(t).toContain("m.timestamp >= now() - make_interval(days => $4::int)");
    expect(t).toContain("((m.payload -> 'properties')::jsonb -> $5::text)");
    expect(t).toContain("LEFT JOIN identity_links il ON m.user_id IS NULL");
    expect(t).toContain("GROUP BY 1 HAVING coalesce(m.user_id, il.user_id) IS NOT NULL AND count(*) >= $7::int");
  });

  it("sibling traits share one profiles scan (AND for all, OR for any); other children INTERSECT / UNION", () => {
    const all = compile({
      all: [
        { trait: "plan", op: "equals", value: "pro" },
        { trait: "country", op: "equals", value: "DE" },
        { event: "Login", atLeast: 1, withinDays: 7 },
      ],
    });
    expect(all.text.match(/FROM profiles/g)).toHaveLength(1);
    expect(all.text).toMatch(/\) AND coalesce\(/);
    expect(all.text).toContain(") INTERSECT (");
    const any = compile({
      any: [
        { trait: "vip", op: "exists" },
        { trait: "plan", op: "equals", value: "pro" },
        { event: "Login", atLeast: 1, withinDays: 7 },
      ],
    });
    expect(any.text).toMatch(/'null' OR coalesce\(/);
    expect(any.text).toContain(") UNION (");
  });

  it("nests the product's example tree with every set parenthesised", () => {
    const q = compile({
      all: [
        { trait: "plan", op: "equals", value: "pro" },
        {
          any: [
            { event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] },
            { trait: "vip", op: "exists" },
          ],
        },
      ],
    });
    expect(q.text).toMatch(
      /^SELECT s\.user_id FROM \(\(SELECT p\.user_id .*\) INTERSECT \(\(SELECT p\.user_id .*\) UNION \(SELECT coalesce.*\)\)\) s WHERE \(EXISTS .*\)$/s,
    );
    // Every placeholder has its value and every value its placeholder.
    const placeholders = new Set([...q.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    expect(Math.max(...placeholders)).toBe(q.values.length);
    expect(placeholders.size).toBe(q.values.length);
  });

  it("keeps only users with data in the audience's sources when a trait is compared (docs/audiences.md#scope, issue 13.9)", () => {
    const traits = compile({ trait: "plan", op: "equals", value: "pro" });
    expect(norm(traits.text)).toMatch(/\) s WHERE \(EXISTS \(SELECT 1 FROM messages m WHERE .* m\.source_id = ANY\(\$5::uuid\[\]\)\)/);
    // One parameter for the sources, shared with the event sets.
    const mixed = compile({
      all: [
        { trait: "plan", op: "equals", value: "pro" },
        { event: "Login", atLeast: 1, withinDays: 7 },
      ],
    });
    expect(mixed.values.filter((v) => v === SRC)).toHaveLength(1);
    expect(mixed.text).toContain("s WHERE (EXISTS");
    // Event sets are made of the sources' calls already: no second check.
    expect(compile({ event: "Login", atLeast: 1, withinDays: 7 }).text).not.toContain("s WHERE");
  });

  it("never puts names or values from the tree into the SQL text", () => {
    const evil = "x'); DROP TABLE profiles; --";
    const q = compile({
      any: [
        { trait: evil, op: "equals", value: evil },
        { trait: evil, op: "contains", value: evil },
        { trait: evil, op: "gt", value: evil },
        { event: evil, atLeast: 1, withinDays: 1, where: [{ property: evil, op: "not_equals", value: evil }] },
      ],
    });
    expect(q.text).not.toContain("DROP");
    expect(q.values.filter((v) => v === evil).length).toBeGreaterThan(4);
  });
});

describe("condition schema", () => {
  const fields = (c: unknown) => {
    const r = audienceConditionSchema.safeParse(c);
    return r.success ? null : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("reports a mistake at the field that is wrong", () => {
    expect(fields({ all: [{ trait: "plan", op: "equals" }] })).toEqual(["all.0.value: A value is required"]);
    expect(fields({ all: [{ trait: "plan", op: "like", value: "x" }] })![0]).toMatch(/^all\.0\.op: Use one of equals/);
    expect(fields({ any: [{ event: "Login", atLeast: 0, withinDays: 7 }] })).toEqual(["any.0.atLeast: At least 1"]);
    expect(fields({ any: [] })).toEqual(["any: A group needs at least one condition"]);
    expect(fields({ nope: 1 })![0]).toMatch(/^: A condition is/);
    expect(fields({ trait: "age", op: "gt", value: true })).toEqual(["value: Compare with a number or a text, not true/false"]);
  });

  it("bounds depth and size", () => {
    const deep = { all: [{ all: [{ all: [{ all: [{ all: [{ trait: "a", op: "exists" }] }] }] }] }] };
    expect(fields(deep)![0]).toMatch(/nest at most/);
    expect(fields({ any: Array.from({ length: 31 }, () => ({ trait: "a", op: "exists" })) })![0]).toMatch(/At most 30 conditions/);
  });

  it("defaults an event's property filters to none", () => {
    expect(audienceConditionSchema.parse({ event: "Login", atLeast: 1, withinDays: 7 })).toEqual({
      event: "Login",
      atLeast: 1,
      withinDays: 7,
      where: [],
    });
  });
});
