import { describe, expect, it } from "vitest";
import { columns, statement } from "./pg-columns";

type Person = { id: string; name: string | null; age: number | null; doc: string | null };
const PEOPLE = columns<Person>()({
  id: ["uuid", (r) => r.id],
  name: ["text", (r) => r.name],
  age: ["int", (r) => r.age],
  doc: ["json", (r) => r.doc],
});
const TAGS = columns<{ person: number; tag: string }>()({ person: ["int", (r) => r.person], tag: ["text", (r) => r.tag] });

describe("statements from typed column lists (docs/architecture.md#one-plan)", () => {
  const s = statement(
    { people: PEOPLE, tags: TAGS },
    ({ people, tags }) =>
      `INSERT INTO people SELECT * FROM ${people.unnest("p")} WHERE p.id = ANY(${people.hiddenIds("id")}) AND EXISTS (SELECT 1 FROM ${tags.unnest("t", { ordinality: "n" })} WHERE t.tag = ${tags.param("tag")}[1])`,
  );

  it("numbers every column once, inputs in order, and writes each one's cast or split by its type", () => {
    expect(s.text).toBe(
      "INSERT INTO people SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], string_to_array((SELECT $4::text), E'\\x1e', '')) AS p(id, name, age, doc)" +
        " WHERE p.id = ANY(CAST((SELECT $1::uuid[]) AS uuid[]))" +
        " AND EXISTS (SELECT 1 FROM unnest($5::int[], $6::text[]) WITH ORDINALITY AS t(person, tag, n) WHERE t.tag = $6::text[][1])",
    );
  });

  it("writes the parameters of a call in the same numbering, one array literal per column", () => {
    const values = s.values({
      people: [
        { id: "a", name: 'O"Hara', age: 40, doc: '{"x":1}' },
        { id: "b", name: null, age: null, doc: null },
      ],
      tags: [{ person: 1, tag: "vip" }],
    });
    expect(values).toEqual(["{a,b}", '{"O\\"Hara",NULL}', "{40,NULL}", '{"x":1}\x1e', "{1}", '{"vip"}']);
    expect(values).toHaveLength(6);
  });

  it("checks each value's type against its column's, and the rows against the input's", () => {
    // Checked by tsc (npx tsc --noEmit), never run.
    const typeChecks = () => {
      // @ts-expect-error an int column's value is a number
      columns<Person>()({ name: ["int", (r) => r.name] });
      // @ts-expect-error rows of another type
      s.values({ people: [{ nope: 1 }], tags: [] });
    };
    expect(typeChecks).toBeTypeOf("function");
  });

  it("refuses a text that leaves a column out, and a column it does not have", () => {
    expect(() => statement({ people: PEOPLE }, ({ people }) => `SELECT ${people.param("id")}, ${people.param("name")}`)).toThrow(
      /\$3 is not used/,
    );
    // @ts-expect-error no such column
    expect(() => statement({ people: PEOPLE }, ({ people }) => people.param("nope"))).toThrow(/no column nope/);
    expect(() => statement({ people: PEOPLE }, ({ people }) => `${people.unnest("p")} ${people.hiddenIds("name")}`)).toThrow(
      /not a uuid column/,
    );
  });
});
