import { ORDER_OPERATORS, UNARY_OPERATORS, isEvent, isGroup, numericValue, type Condition, type Operator } from "@/lib/audiences/condition";

/**
 * The builder edits a draft: the condition tree with text inputs as typed, and a stable key per
 * row for React. toCondition gives the API's tree (then validated by the same zod schema as the
 * API); fromCondition loads a saved audience back into the builder.
 */
export type DraftFilter = { key: string; property: string; op: Operator; value: string };
export type DraftTrait = { kind: "trait"; key: string; trait: string; op: Operator; value: string };
export type DraftEvent = { kind: "event"; key: string; event: string; atLeast: string; withinDays: string; where: DraftFilter[] };
export type DraftGroup = { kind: "group"; key: string; match: "all" | "any"; children: DraftNode[] };
export type DraftNode = DraftTrait | DraftEvent | DraftGroup;

let seq = 0;
export const newKey = () => `k${++seq}`;

export const newTrait = (): DraftTrait => ({ kind: "trait", key: newKey(), trait: "", op: "equals", value: "" });
export const newEvent = (): DraftEvent => ({ kind: "event", key: newKey(), event: "", atLeast: "1", withinDays: "30", where: [] });
export const newFilter = (): DraftFilter => ({ key: newKey(), property: "", op: "equals", value: "" });
export const newGroup = (match: "all" | "any" = "all", children: DraftNode[] = [newTrait()]): DraftGroup => ({
  kind: "group",
  key: newKey(),
  match,
  children,
});

/** Ordering operators compare numbers when the text reads as one; everything else sends the text. */
function toValue(op: Operator, text: string): string | number | undefined {
  if (UNARY_OPERATORS.includes(op)) return undefined;
  if (ORDER_OPERATORS.includes(op)) {
    const n = numericValue(text);
    if (n !== null) return n;
  }
  return text;
}

const toInt = (s: string) => (/^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN);

export function toCondition(node: DraftNode): Condition {
  switch (node.kind) {
    case "group":
      return (node.match === "all" ? { all: node.children.map(toCondition) } : { any: node.children.map(toCondition) }) as Condition;
    case "event":
      return {
        event: node.event,
        atLeast: toInt(node.atLeast),
        withinDays: toInt(node.withinDays),
        where: node.where.map((f) => ({ property: f.property, op: f.op, ...withValue(toValue(f.op, f.value)) })),
      };
    case "trait":
      return { trait: node.trait, op: node.op, ...withValue(toValue(node.op, node.value)) };
  }
}

const withValue = (v: string | number | undefined) => (v === undefined ? {} : { value: v });
const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));

export function fromCondition(c: Condition): DraftNode {
  if (isGroup(c))
    return { kind: "group", key: newKey(), match: "all" in c ? "all" : "any", children: ("all" in c ? c.all : c.any).map(fromCondition) };
  if (isEvent(c))
    return {
      kind: "event",
      key: newKey(),
      event: c.event,
      atLeast: String(c.atLeast),
      withinDays: String(c.withinDays),
      where: (c.where ?? []).map((f) => ({ key: newKey(), property: f.property, op: f.op, value: text(f.value) })),
    };
  return { kind: "trait", key: newKey(), trait: c.trait, op: c.op, value: text(c.value) };
}

/** The builder's root is always a group, so "add condition" always has somewhere to go. */
export function rootDraft(c: Condition | null): DraftGroup {
  if (!c) return newGroup("all");
  const d = fromCondition(c);
  return d.kind === "group" ? d : newGroup("all", [d]);
}
