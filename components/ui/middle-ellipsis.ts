/**
 * A long value cut in the middle, not at the end: two URLs of one destination differ at their end
 * (`/ok-a`, `/ok-b`), so the end stays; the start keeps the scheme and host. Code points, not UTF-16
 * units, so a cut never splits an emoji or a surrogate pair.
 */
export function middleEllipsis(value: string, max: number): string {
  const chars = Array.from(value);
  if (chars.length <= max) return value;
  const budget = Math.max(max - 1, 2);
  const head = Math.ceil(budget * 0.45);
  const tail = budget - head;
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}
