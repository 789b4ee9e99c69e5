import {
  USAGE_WINDOWS,
  type ApiKey,
  type Usage,
  type UsageBucket,
  type UsageWindow,
} from '@boxoffice/dashboard-contract';
import { getRouteApi } from '@tanstack/react-router';
import { useCallback, useId, useMemo, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { Chart, type ChartSeries } from '../components/chart';
import { DataTable } from '../components/data-table';
import { Loaded } from '../components/feedback';
import { KeyField } from '../components/select-field';
import { formatCount, formatDateTime, formatDay, formatDuration } from '../format';
import { useMode } from '../mode';
import type { UsageSearch } from '../router';
import { useResource } from '../use-resource';

const usageRoute = getRouteApi('/signed-in/usage');

const loadKeys = async () => unwrap(await api.listKeys(), 200).data;

const WINDOWS: Record<UsageWindow, { label: string; span: string; bucket: string }> = {
  '24h': { label: 'Last 24 hours', span: 'in the last 24 hours', bucket: '5 minutes' },
  '14d': { label: 'Last 14 days', span: 'in the last 14 days', bucket: 'day' },
};

// The status classes' colours, the same in every chart: green, amber, red, grey.
const COLORS = {
  ok: '#1e7a45',
  clientError: '#b7791f',
  serverError: '#b42318',
  other: '#8792a2',
  limited: '#7c3aed',
  p50: '#2f5bd3',
  p99: '#c2410c',
};

export function UsagePage() {
  const search = usageRoute.useSearch();
  const test = useMode() === 'test';
  const { window, key_id } = search;
  const load = useCallback(
    async () => unwrap(await api.getUsage({ query: { window, key_id } }), 200).data,
    [window, key_id],
  );
  const { resource, reload } = useResource(load);
  const keys = useResource(loadKeys).resource;
  const keyList = keys.status === 'ready' ? keys.data : [];
  const key = keyList.find((one) => one.id === key_id);

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Usage
      </h1>
      <p className="muted lead">
        The requests made to the API with your {test ? 'test ' : ''}keys, by how they were answered
        and how long they took, and the webhook deliveries of the last 14 days. The numbers come
        from the request log: a request counts a few seconds after its answer.
      </p>
      <UsageChoice search={search} keys={keyList} />
      <Loaded resource={resource} loading="Loading usage…" onRetry={reload}>
        {(usage) => (
          <UsageCharts
            usage={usage}
            who={key_id ? `made with ${key ? `“${key.name}”` : 'this key'}` : 'made with any key'}
          />
        )}
      </Loaded>
    </>
  );
}

/** The window and the key, as a form: sending it puts them in the address. */
function UsageChoice({ search, keys }: { search: UsageSearch; keys: ApiKey[] }) {
  const navigate = usageRoute.useNavigate();
  const { register, handleSubmit } = useForm({
    values: { window: search.window, key_id: search.key_id ?? '' },
  });
  const id = useId();
  const submit = handleSubmit(({ window, key_id }) =>
    navigate({ search: { window, key_id: key_id || undefined } }),
  );

  return (
    <form className="section card usage-choice" onSubmit={submit} aria-label="Usage to show">
      <fieldset className="fieldset">
        <legend id={`${id}-window`}>Period</legend>
        <div className="choices">
          {USAGE_WINDOWS.map((window) => (
            <label key={window} className="choice">
              <input type="radio" value={window} {...register('window')} />
              {WINDOWS[window].label}
            </label>
          ))}
        </div>
      </fieldset>
      <KeyField keys={keys} none="All keys" {...register('key_id')} />
      <button type="submit" className="button button-primary">
        Show
      </button>
    </form>
  );
}

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const other = (bucket: UsageBucket) =>
  bucket.requests - bucket.requests_2xx - bucket.requests_4xx - bucket.requests_5xx;

function UsageCharts({ usage, who }: { usage: Usage; who: string }) {
  const window = WINDOWS[usage.window];
  const daily = usage.window === '14d';
  const when = (iso: string) => (daily ? formatDay(iso) : formatDateTime(iso));
  const { buckets } = usage;
  const x = useMemo(() => buckets.map((bucket) => at(bucket.start)), [buckets]);
  const busy = buckets.filter((bucket) => bucket.requests > 0);

  const statuses = useMemo<ChartSeries[]>(() => {
    const series = [
      { label: '2xx', color: COLORS.ok, values: buckets.map((b) => b.requests_2xx) },
      { label: '4xx', color: COLORS.clientError, values: buckets.map((b) => b.requests_4xx) },
      { label: '5xx', color: COLORS.serverError, values: buckets.map((b) => b.requests_5xx) },
      { label: 'other', color: COLORS.other, values: buckets.map(other) },
    ];
    return series.filter((one) => one.label !== 'other' || one.values.some((v) => v > 0));
  }, [buckets]);
  const limited = useMemo<ChartSeries[]>(
    () => [{ label: '429', color: COLORS.limited, values: buckets.map((b) => b.rate_limited) }],
    [buckets],
  );
  const durations = useMemo<ChartSeries[]>(
    () => [
      { label: 'p50 (median)', color: COLORS.p50, values: buckets.map((b) => b.p50_ms) },
      { label: 'p99', color: COLORS.p99, values: buckets.map((b) => b.p99_ms) },
    ],
    [buckets],
  );
  const days = usage.webhook_deliveries;
  const dayX = useMemo(() => days.map((day) => at(`${day.day}T00:00:00Z`)), [days]);
  const deliveries = useMemo<ChartSeries[]>(
    () => [
      { label: 'succeeded', color: COLORS.ok, values: days.map((d) => d.succeeded) },
      { label: 'failed', color: COLORS.serverError, values: days.map((d) => d.failed) },
    ],
    [days],
  );

  const total = sum(buckets.map((b) => b.requests));
  const busiest = busy.reduce<UsageBucket | undefined>(
    (top, bucket) => (top && top.requests >= bucket.requests ? top : bucket),
    undefined,
  );
  const limitedTotal = sum(buckets.map((b) => b.rate_limited));
  const p50s = busy.map((b) => b.p50_ms ?? 0);
  const p99s = busy.map((b) => b.p99_ms ?? 0);
  const succeeded = sum(days.map((d) => d.succeeded));
  const failed = sum(days.map((d) => d.failed));
  const attempted = days.filter((d) => d.succeeded + d.failed > 0);
  const otherTotal = sum(buckets.map(other));
  const timeRow = (bucket: UsageBucket, cells: string[]): TableRow => ({
    key: bucket.start,
    head: when(bucket.start),
    cells,
  });

  return (
    <>
      <ChartFigure
        title="Requests by status"
        summary={
          total === 0
            ? `No requests ${who} ${window.span}.`
            : `${formatCount(total)} requests ${who} ${window.span}: ${formatCount(sum(buckets.map((b) => b.requests_2xx)))} answered 2xx, ${formatCount(sum(buckets.map((b) => b.requests_4xx)))} 4xx and ${formatCount(sum(buckets.map((b) => b.requests_5xx)))} 5xx${otherTotal > 0 ? `, ${formatCount(otherTotal)} other` : ''}.${busiest ? ` The busiest ${window.bucket}: ${when(busiest.start)}, with ${formatCount(busiest.requests)}.` : ''}`
        }
        chart={<Chart x={x} series={statuses} kind="bars" daily={daily} />}
        table={{
          caption: `Requests per ${window.bucket}, by status class`,
          columns: ['Time', 'Requests', '2xx', '4xx', '5xx'],
          rows: busy.map((bucket) =>
            timeRow(bucket, [
              formatCount(bucket.requests),
              formatCount(bucket.requests_2xx),
              formatCount(bucket.requests_4xx),
              formatCount(bucket.requests_5xx),
            ]),
          ),
        }}
        empty={busy.length === 0}
      />
      <ChartFigure
        title="Rate limited (429)"
        summary={
          limitedTotal === 0
            ? `No request ${who} was rate limited ${window.span}.`
            : `${formatCount(limitedTotal)} of the requests ${who} ${window.span} were rate limited (answered 429).`
        }
        chart={<Chart x={x} series={limited} kind="bars" daily={daily} />}
        table={{
          caption: `Requests answered 429 per ${window.bucket}`,
          columns: ['Time', '429', 'Of requests'],
          rows: busy
            .filter((bucket) => bucket.rate_limited > 0)
            .map((bucket) =>
              timeRow(bucket, [formatCount(bucket.rate_limited), formatCount(bucket.requests)]),
            ),
        }}
        empty={limitedTotal === 0}
      />
      <ChartFigure
        title="Duration"
        summary={
          busy.length === 0
            ? `No durations: no requests ${who} ${window.span}.`
            : `From arrival to the answer's last byte, per ${window.bucket}: the median (p50) between ${formatDuration(Math.min(...p50s))} and ${formatDuration(Math.max(...p50s))}, the 99th percentile (p99) at most ${formatDuration(Math.max(...p99s))}.`
        }
        chart={<Chart x={x} series={durations} kind="lines" unit="ms" daily={daily} />}
        table={{
          caption: `Durations per ${window.bucket}`,
          columns: ['Time', 'Requests', 'p50', 'p99'],
          rows: busy.map((bucket) =>
            timeRow(bucket, [
              formatCount(bucket.requests),
              bucket.p50_ms === null ? '—' : formatDuration(bucket.p50_ms),
              bucket.p99_ms === null ? '—' : formatDuration(bucket.p99_ms),
            ]),
          ),
        }}
        empty={busy.length === 0}
      />
      <ChartFigure
        title="Webhook deliveries"
        summary={
          succeeded + failed === 0
            ? 'No webhook delivery attempts in the last 14 days.'
            : `Webhook delivery attempts in the last 14 days, to every endpoint: ${formatCount(succeeded)} succeeded and ${formatCount(failed)} failed.`
        }
        chart={<Chart x={dayX} series={deliveries} kind="bars" daily />}
        table={{
          caption: 'Webhook delivery attempts per day',
          columns: ['Day', 'Succeeded', 'Failed'],
          rows: attempted.map((day) => ({
            key: day.day,
            head: <time dateTime={day.day}>{formatDay(`${day.day}T00:00:00Z`)}</time>,
            cells: [formatCount(day.succeeded), formatCount(day.failed)],
          })),
        }}
        empty={attempted.length === 0}
      />
    </>
  );
}

/** A row of a chart's numbers: its heading (the time or day), then its values. */
interface TableRow {
  key: string;
  head: ReactNode;
  cells: string[];
}

/**
 * A chart with its text alternative: a heading, a sentence that says what it shows, and the
 * numbers behind it in a table (folded away).
 */
function ChartFigure({
  title,
  summary,
  chart,
  table,
  empty,
}: {
  title: string;
  summary: string;
  chart: ReactNode;
  table: { caption: string; columns: string[]; rows: TableRow[] };
  /** Nothing to draw: the sentence says so, and no chart or table is shown. */
  empty: boolean;
}) {
  const id = useId();
  return (
    <figure className="section card chart-figure" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`}>{title}</h2>
        <p className="chart-summary">{summary}</p>
      </figcaption>
      {!empty && (
        <>
          {chart}
          <details className="chart-numbers">
            <summary>The numbers</summary>
            <DataTable caption={table.caption} columns={table.columns}>
              {table.rows.map(({ key, head, cells }) => (
                <tr key={key}>
                  <th scope="row">{head}</th>
                  {cells.map((cell, column) => (
                    <td key={column}>{cell}</td>
                  ))}
                </tr>
              ))}
            </DataTable>
          </details>
        </>
      )}
    </figure>
  );
}
