import { useId, type ReactNode } from 'react';

/**
 * A column's heading: its label, or a label only screen readers get (an actions column's), or a
 * label and a class for the heading (its cells take the same class).
 */
export type Column =
  string | { label: string; visuallyHidden: true } | { label: string; className: string };

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
  const captionId = useId();
  return (
    // It scrolls sideways on a narrow screen: a tab stop lets a keyboard scroll it even when no
    // button is left in it (every key revoked).
    <div className="table-wrap" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="table">
        <caption className="visually-hidden" id={captionId}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : 'className' in column ? (
                <th key={column.label} scope="col" className={column.className}>
                  {column.label}
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
