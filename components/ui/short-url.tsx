import { middleEllipsis } from "./middle-ellipsis";

/**
 * A URL (or any long value) cut in the middle to `max` characters, the whole on hover and for screen
 * readers (docs/dashboard.md#any-screen-any-input).
 */
export function ShortValue({ value, max, className = "" }: { value: string; max: number; className?: string }) {
  const short = middleEllipsis(value, max);
  if (short === value) return <span className={`break-all ${className}`}>{value}</span>;
  return (
    <span className={className}>
      <span className="sr-only">{value}</span>
      <span aria-hidden title={value} className="break-all">
        {short}
      </span>
    </span>
  );
}
