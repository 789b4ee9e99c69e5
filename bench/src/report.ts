/** One line of the results table: our figure, the limit's, and the target if the metric has one. */
export interface Row {
  metric: string;
  unit: string;
  ours: number | null;
  limit: number | null;
  /** ours ÷ limit. */
  ratio: number | null;
  target: string | null;
  /** Null when the metric has no target. */
  pass: boolean | null;
}

export type Target =
  | { kind: 'ratio-at-least'; value: number }
  | { kind: 'ratio-at-most'; value: number }
  | { kind: 'below'; value: number; unit: string }
  | { kind: 'at-most'; value: number; unit: string }
  | { kind: 'at-least'; value: number; unit: string };

export function row(
  metric: string,
  unit: string,
  ours: number | null,
  limit: number | null,
  target?: Target,
): Row {
  const ratio = ours !== null && limit !== null && limit !== 0 ? ours / limit : null;
  let targetText: string | null = null;
  let pass: boolean | null = null;
  if (target?.kind === 'ratio-at-least') {
    targetText = `≥ ${target.value.toFixed(2)}×`;
    pass = ratio !== null && ratio >= target.value;
  } else if (target?.kind === 'ratio-at-most') {
    targetText = `≤ ${target.value.toFixed(2)}×`;
    pass = ratio !== null && ratio <= target.value;
  } else if (target?.kind === 'at-most') {
    targetText = `≤ ${target.value} ${target.unit}`;
    pass = ours !== null && ours <= target.value;
  } else if (target?.kind === 'at-least') {
    targetText = `≥ ${target.value} ${target.unit}`;
    pass = ours !== null && ours >= target.value;
  } else if (target?.kind === 'below') {
    targetText = `< ${target.value} ${target.unit}`;
    pass = ours !== null && ours < target.value;
  }
  return { metric, unit, ours, limit, ratio, target: targetText, pass };
}

function formatNumber(value: number | null): string {
  if (value === null || Number.isNaN(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-GB');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** The table as Markdown, columns aligned, ready to paste into a document. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['metric', 'ours', 'limit', 'ratio', 'target', 'pass/miss'];
  const lines = rows.map((r) => [
    r.unit ? `${r.metric} (${r.unit})` : r.metric,
    formatNumber(r.ours),
    formatNumber(r.limit),
    r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×`,
    r.target ?? '—',
    r.pass === null ? '' : r.pass ? 'pass' : 'MISS',
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((cells) => cells[i]?.length ?? 0)),
  );
  // Numbers align right, text left.
  const right = [false, true, true, true, false, false];
  const render = (cells: readonly string[]) => {
    const padded = widths.map((width, i) => {
      const cell = cells[i] ?? '';
      return right[i] ? cell.padStart(width) : cell.padEnd(width);
    });
    return `| ${padded.join(' | ')} |`;
  };
  const rule = `| ${widths.map((w, i) => (right[i] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}
