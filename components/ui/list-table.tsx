import Link from "next/link";
import type { ReactNode } from "react";
import { Card, ErrorNote, Spinner } from "./card";

/** What a list page shows from its query: the fields of TanStack Query's result that matter here. */
type ListQuery<T> = { isPending: boolean; isError: boolean; error: unknown; data: T[] | undefined };

/** Loading, failed, empty, or the rows: the four states every list page goes through. */
function ListStates<T>({ query, empty, children }: { query: ListQuery<T>; empty: ReactNode; children: (rows: T[]) => ReactNode }) {
  if (query.isPending) return <Spinner />;
  if (query.isError || !query.data) return <ErrorNote error={query.error} />;
  if (query.data.length === 0) return <>{empty}</>;
  return <>{children(query.data)}</>;
}

export type Column<T> = {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Classes of the column's cells (alignment, width, typography). */
  className?: string;
  align?: "right";
};

/** A list page's table: one row per item, the first cell usually linking to its page. */
export function ListTable<T>({
  query,
  empty,
  columns,
  rowKey,
}: {
  query: ListQuery<T>;
  empty: ReactNode;
  columns: Column<T>[];
  rowKey: (row: T) => string;
}) {
  const right = (c: Column<T>) => (c.align === "right" ? "text-right" : "");
  return (
    <ListStates query={query} empty={empty}>
      {(rows) => (
        <Card className="relative overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                {columns.map((c, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are a fixed list that never reorders
                  <th key={i} className={`px-4 py-2 font-medium ${right(c)}`}>
                    {c.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((row) => (
                <tr key={rowKey(row)} className="hover:bg-slate-50">
                  {columns.map((c, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are a fixed list that never reorders
                    <td key={i} className={`px-4 py-3 ${right(c)} ${c.className ?? ""}`}>
                      {c.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </ListStates>
  );
}

/** A list page whose every item is one link to its page: what it is on the left, its state on the right. */
export function LinkList<T>({
  query,
  empty,
  itemKey,
  href,
  children,
}: {
  query: ListQuery<T>;
  empty: ReactNode;
  itemKey: (item: T) => string;
  href: (item: T) => string;
  children: (item: T) => ReactNode;
}) {
  return (
    <ListStates query={query} empty={empty}>
      {(items) => (
        <Card>
          <ul className="divide-y divide-slate-100">
            {items.map((item) => (
              <li key={itemKey(item)}>
                <Link href={href(item)} className="flex min-w-0 items-center justify-between gap-4 px-4 py-3 hover:bg-slate-50">
                  {children(item)}
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </ListStates>
  );
}
