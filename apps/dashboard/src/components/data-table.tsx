import type { ReactNode } from 'react';

/** A column's heading: its label, or a label only screen readers get (an actions column's). */
export type Column = string | { label: string; visuallyHidden: true };

/**
 * A table of records: the wrapper that keeps it (and its hidden text) within the page, a caption
 * for screen readers, one header row with a heading per column, and `children` as the body's rows.
 */
export function DataTable({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: readonly Column[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col">
                  <span className="visually-hidden">{column.label}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
