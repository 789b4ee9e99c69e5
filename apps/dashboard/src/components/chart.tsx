import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** A canvas colour: the legend shows the same. */
  color: string;
  /** One value per point of `x`; null for none (a gap in a line). */
  values: (number | null)[];
}

const HEIGHT = 200;
const AXIS_COLOR = '#5b6575';
const GRID_COLOR = '#e3e7ed';

/**
 * A time chart drawn on a canvas with uPlot, as wide as its container (it follows a resize, down
 * to a phone's width). `bars` stacks the series (the first at the bottom); `lines` draws each.
 * The canvas is hidden from assistive technology: the figure around it carries the text
 * alternative (its caption and a table of the numbers).
 */
export function Chart({
  x,
  series,
  kind,
  unit,
  daily = false,
}: {
  /** The points' times, in Unix seconds. */
  x: number[];
  series: ChartSeries[];
  kind: 'bars' | 'lines';
  /** After each value on the y axis (`ms`). */
  unit?: string;
  /** One point a day: the x axis names dates, not times. */
  daily?: boolean;
}) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const target = container.current;
    if (!target) return;
    // Stacked bars: each series is drawn from zero to its running total, the top one first, so
    // every bar shows its own part.
    const drawn =
      kind === 'bars'
        ? series
            .map((one, index) => ({
              ...one,
              values: x.map((_, i) =>
                series.slice(0, index + 1).reduce((sum, below) => sum + (below.values[i] ?? 0), 0),
              ),
            }))
            .reverse()
        : series;
    const bars = uPlot.paths.bars?.({ size: [0.8, 40, 1] });
    const [first = 0, second = first + 60] = x;
    const step = second - first;
    const options: uPlot.Options = {
      width: target.clientWidth,
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      padding: [8, 8, 0, 0],
      scales: {
        // Half a step more on each side, so the first and last bars are whole.
        x: { time: true, range: (_, min, max) => [min - step / 2, max + step / 2] },
        y: { range: (_, min, max) => [0, Math.max(1, max, min)] },
      },
      axes: [
        {
          stroke: AXIS_COLOR,
          grid: { show: false },
          ticks: { stroke: GRID_COLOR },
          ...(daily ? { values: '{D} {MMM}', space: 50 } : {}),
        },
        {
          stroke: AXIS_COLOR,
          grid: { stroke: GRID_COLOR },
          ticks: { stroke: GRID_COLOR },
          size: 56,
          values: (_, ticks) =>
            ticks.map((tick) => `${tick.toLocaleString()}${unit ? ` ${unit}` : ''}`),
        },
      ],
      series: [
        {},
        ...drawn.map((one) =>
          kind === 'bars'
            ? {
                label: one.label,
                fill: one.color,
                stroke: one.color,
                width: 0,
                paths: bars,
                points: { show: false },
              }
            : // Every value gets its dot: a value between two empty buckets has no line to draw.
              {
                label: one.label,
                stroke: one.color,
                width: 2,
                spanGaps: false,
                points: { show: true, size: 5, fill: one.color },
              },
        ),
      ],
    };
    const plot = new uPlot(options, [x, ...drawn.map((one) => one.values)], target);
    const resized = new ResizeObserver(() => {
      if (target.clientWidth !== plot.width)
        plot.setSize({ width: target.clientWidth, height: HEIGHT });
    });
    resized.observe(target);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [x, series, kind, unit, daily]);

  return (
    <div className="chart">
      <div className="chart-canvas" ref={container} aria-hidden="true" />
      <ul className="chart-legend" aria-hidden="true">
        {series.map((one) => (
          <li key={one.label}>
            <span className="chart-swatch" style={{ background: one.color }} />
            {one.label}
          </li>
        ))}
      </ul>
    </div>
  );
}
