import { UNARY_OPERATORS, isEvent, isGroup, type Condition, type Operator } from "@/lib/audiences/condition";

const WORDS: Record<Operator, string> = {
  equals: "=",
  not_equals: "≠",
  exists: "exists",
  not_exists: "does not exist",
  contains: "contains",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
};

const cmp = (key: string, op: Operator, value: unknown) =>
  UNARY_OPERATORS.includes(op) ? `${key} ${WORDS[op]}` : `${key} ${WORDS[op]} ${JSON.stringify(value)}`;

/** One line a person can read: `plan = "pro" AND (Order Completed ≥ 3× in 30 d OR vip exists)`. */
export function describeCondition(c: Condition, nested = false): string {
  if (isGroup(c)) {
    const parts = ("all" in c ? c.all : c.any).map((x) => describeCondition(x, true));
    const s = parts.join("all" in c ? " AND " : " OR ");
    return nested && parts.length > 1 ? `(${s})` : s;
  }
  if (isEvent(c)) {
    const where = (c.where ?? []).map((f) => cmp(f.property, f.op, f.value));
    return `${c.event} ≥ ${c.atLeast}× in ${c.withinDays} d${where.length ? ` where ${where.join(" and ")}` : ""}`;
  }
  return cmp(c.trait, c.op, c.value);
}

/** A sync's change in members: "+3" (entered) or "−2" (exited) in colour, a plain "0" when nothing changed. */
export function syncDelta(n: number, direction: "entered" | "exited"): { text: string; tone: "up" | "down" | "none" } {
  if (n === 0) return { text: "0", tone: "none" };
  const count = n.toLocaleString("en-US");
  return direction === "entered" ? { text: `+${count}`, tone: "up" } : { text: `−${count}`, tone: "down" };
}
