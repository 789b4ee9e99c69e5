import {
  RequestLogQuerySchema,
  STATUS_CLASSES,
  type ApiKey,
  type BodyOmission,
  type RequestLog,
  type RequestLogSummary,
} from '@boxoffice/dashboard-contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useCallback, useId, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { api, ApiError, unwrap } from '../api';
import { DataTable } from '../components/data-table';
import { Loaded } from '../components/feedback';
import { KeyField, SelectField } from '../components/select-field';
import { TextField } from '../components/text-field';
import { fieldsOf } from '../forms';
import { formatCount, formatDateTime, formatDuration } from '../format';
import { useMode } from '../mode';
import type { LogsSearch } from '../router';
import { useResource } from '../use-resource';

const listRoute = getRouteApi('/signed-in/logs');
const logRoute = getRouteApi('/signed-in/logs/$id');

/** docs/api.md's table of status codes and error codes, as the API reference at /docs shows it. */
export const ERROR_CODES_DOCS = '/docs#description/status-codes-and-error-codes';

const METHODS = RequestLogQuerySchema.shape.method.unwrap().options;

const loadKeys = async () => unwrap(await api.listKeys(), 200).data;

const statusBadge = (status: number) =>
  status < 400
    ? 'status status-active'
    : status < 500
      ? 'status status-warning'
      : 'status status-error';

/** The list's filters (its cursor is where in it, not a filter). */
const FILTERS = ['request_id', 'status_class', 'status', 'method', 'key_id', 'route'] as const;
const hasFilters = (search: LogsSearch) => FILTERS.some((name) => search[name] !== undefined);

export function LogsPage() {
  const search = listRoute.useSearch();
  const test = useMode() === 'test';
  const load = useCallback(
    async () => unwrap(await api.listLogs({ query: search }), 200),
    [search],
  );
  const { resource, reload } = useResource(load);
  const keys = useResource(loadKeys).resource;
  const keyList = keys.status === 'ready' ? keys.data : [];

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Logs
      </h1>
      <p className="muted lead">
        The requests made to the API with your {test ? 'test ' : ''}keys, newest first, kept for 14
        days. A request shows up here a few seconds after its answer. Search for one by the{' '}
        <code>X-Request-Id</code> of its answer (an error’s <code>request_id</code>).
      </p>

      <LogFilters search={search} keys={keyList} />

      <section aria-labelledby="requests-title" className="section">
        <div className="section-head">
          <h2 id="requests-title">{test ? 'Test requests' : 'Live requests'}</h2>
          <button type="button" className="button button-secondary button-small" onClick={reload}>
            Refresh
          </button>
        </div>
        <Loaded resource={resource} loading="Loading requests…" onRetry={reload}>
          {({ data, next_cursor }) => (
            <>
              <p className="visually-hidden" role="status">
                {data.length === 0
                  ? 'No requests found.'
                  : `${formatCount(data.length)} requests shown${next_cursor ? ', older ones on the next page' : ''}.`}
              </p>
              {data.length === 0 ? (
                <div className="empty">
                  {hasFilters(search) ? (
                    <>
                      <p>No requests match these filters.</p>
                      <p>
                        <Link to="/logs">Show every request</Link>
                      </p>
                    </>
                  ) : (
                    <>
                      <p>No requests {search.cursor ? 'older than these' : 'recorded yet'}.</p>
                      <p className="muted">
                        Requests to <code>/api/v1</code> made with your {test ? 'test ' : ''}keys
                        appear here.
                      </p>
                    </>
                  )}
                </div>
              ) : (
                <LogsTable logs={data} search={search} />
              )}
              <nav aria-label="Pages of requests" className="pager">
                {search.cursor && (
                  <Link to="/logs" search={{ ...search, cursor: undefined }}>
                    Newest
                  </Link>
                )}
                {next_cursor && (
                  <Link to="/logs" search={{ ...search, cursor: next_cursor }} rel="next">
                    Older
                  </Link>
                )}
              </nav>
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}

const FiltersFormSchema = z.object({
  request_id: z.string().trim().max(128, 'A request ID has at most 128 characters.'),
  status_class: z.enum(['', ...STATUS_CLASSES]),
  status: z
    .string()
    .trim()
    .regex(/^([1-5]\d\d)?$/, 'Enter a status such as 404, or leave it empty.'),
  method: z.enum(['', ...METHODS]),
  key_id: z.string(),
  route: z.string().trim().max(200, 'A route has at most 200 characters.'),
});
type FiltersForm = z.input<typeof FiltersFormSchema>;

const formOf = (search: LogsSearch): FiltersForm => ({
  request_id: search.request_id ?? '',
  status_class: search.status_class ?? '',
  status: search.status === undefined ? '' : String(search.status),
  method: search.method ?? '',
  key_id: search.key_id ?? '',
  route: search.route ?? '',
});

/**
 * The list's filters, as a search form: sending it puts them in the address (a link to share, a
 * step back in the history) and starts the list from its newest request.
 */
function LogFilters({ search, keys }: { search: LogsSearch; keys: ApiKey[] }) {
  const navigate = listRoute.useNavigate();
  const form = useForm({ resolver: zodResolver(FiltersFormSchema), values: formOf(search) });
  const { register, handleSubmit } = form;
  const field = fieldsOf(form);
  const id = useId();

  const submit = handleSubmit((filters) =>
    navigate({
      search: {
        request_id: filters.request_id || undefined,
        status_class: filters.status_class || undefined,
        status: filters.status ? Number(filters.status) : undefined,
        method: filters.method || undefined,
        key_id: filters.key_id || undefined,
        route: filters.route || undefined,
      },
    }),
  );

  return (
    <section aria-labelledby={`${id}-title`} className="section card">
      <h2 id={`${id}-title`}>Find requests</h2>
      <form role="search" aria-labelledby={`${id}-title`} onSubmit={submit} noValidate>
        <TextField
          label="Request ID"
          hint="The X-Request-Id of the answer, exactly."
          type="search"
          spellCheck={false}
          autoComplete="off"
          {...field('request_id')}
        />
        <div className="filters">
          <SelectField
            label="Status class"
            none="Any"
            choices={STATUS_CLASSES}
            {...register('status_class')}
          />
          <TextField
            label="Status"
            inputMode="numeric"
            autoComplete="off"
            placeholder="e.g. 404"
            {...field('status')}
          />
          <SelectField label="Method" none="Any" choices={METHODS} {...register('method')} />
          <KeyField keys={keys} none="Any key" {...register('key_id')} />
          <TextField
            label="Route"
            autoComplete="off"
            spellCheck={false}
            placeholder="/events/:id"
            {...field('route')}
          />
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary">
            Search
          </button>
          {hasFilters(search) && <Link to="/logs">Clear filters</Link>}
        </div>
      </form>
    </section>
  );
}

function LogsTable({ logs, search }: { logs: RequestLogSummary[]; search: LogsSearch }) {
  return (
    <DataTable
      caption="Requests, newest first"
      columns={[
        'Time',
        'Request',
        'Status',
        { label: 'Duration', className: 'column-secondary' },
        { label: 'Key', className: 'column-secondary' },
      ]}
    >
      {logs.map((log) => (
        <tr key={log.id}>
          <td className="cell-time">
            <time dateTime={log.created_at}>
              {formatDateTime(log.created_at, { seconds: true })}
            </time>
          </td>
          <th scope="row" className="cell-request">
            <Link to="/logs/$id" params={{ id: log.id }} search={search}>
              <code>
                {log.method} {log.path}
              </code>
            </Link>
            <span className="status-detail muted request-id">{log.request_id}</span>
          </th>
          <td>
            <span className={statusBadge(log.status)}>{log.status}</span>
            {log.error_code && (
              <span className="status-detail">
                <code>{log.error_code}</code>
              </span>
            )}
          </td>
          <td className="column-secondary">{formatDuration(log.duration_ms)}</td>
          <td className="column-secondary">
            {log.key_hint ? <code>{log.key_hint}</code> : <span className="muted">none</span>}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Why a body the request had was not kept. */
const OMISSIONS: Record<BodyOmission, string> = {
  not_read: 'Not read: the request was refused before its body was read.',
  not_json: 'Not kept: it was not JSON, or not sent as application/json.',
  invalid_utf8: 'Not kept: it was not UTF-8.',
  too_large: 'Not kept: it was over the body limit.',
  too_deep: 'Not kept: it was nested too deep.',
};

/** A stored body, indented when it is whole JSON (a cut one is shown as kept). */
function bodyText(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function LogPage() {
  const { id } = logRoute.useParams();
  const search = logRoute.useSearch();
  const test = useMode() === 'test';
  const load = useCallback(
    async () => unwrap(await api.getLog({ params: { id } }), 200).data,
    [id],
  );
  const { resource, reload } = useResource(load);
  const missing =
    resource.status === 'error' &&
    resource.error instanceof ApiError &&
    resource.error.status === 404;

  return (
    <>
      <p className="breadcrumb">
        <Link to="/logs" search={search}>
          Back to the logs
        </Link>
      </p>
      <h1 tabIndex={-1} data-page-heading>
        Request
      </h1>
      {missing ? (
        <div className="empty">
          <p>
            There is no request <code>{id}</code> in the {test ? 'test' : 'live'} log.
          </p>
          <p className="muted">
            Requests are kept 14 days, and each mode shows its own: switch test mode{' '}
            {test ? 'off' : 'on'} to look in the other.
          </p>
        </div>
      ) : (
        <Loaded resource={resource} loading="Loading the request…" onRetry={reload}>
          {(log) => <LogDetails log={log} />}
        </Loaded>
      )}
    </>
  );
}

function LogDetails({ log }: { log: RequestLog }) {
  const rows: [string, ReactNode][] = [
    [
      'Time',
      <time dateTime={log.created_at}>{formatDateTime(log.created_at, { seconds: true })}</time>,
    ],
    ['Mode', log.livemode ? 'live' : 'test'],
    [
      'Key',
      log.key_hint && log.key_id ? (
        <>
          <code>{log.key_hint}</code>{' '}
          <Link to="/logs" search={{ key_id: log.key_id }}>
            its requests
          </Link>
        </>
      ) : (
        'none'
      ),
    ],
    ['Method', <code>{log.method}</code>],
    ['Route', <code>{log.route}</code>],
    ['Path', <code className="wrap-anywhere">{log.path}</code>],
    ['Status', <span className={statusBadge(log.status)}>{log.status}</span>],
    [
      'Error code',
      log.error_code ? (
        <>
          <code>{log.error_code}</code>{' '}
          <a href={ERROR_CODES_DOCS}>
            What <code>{log.error_code}</code> means (API reference)
          </a>
        </>
      ) : (
        'none'
      ),
    ],
    ['Duration', formatDuration(log.duration_ms)],
    ['Request ID', <code className="wrap-anywhere">{log.request_id}</code>],
    [
      'Idempotency key',
      log.idempotency_key ? <code className="wrap-anywhere">{log.idempotency_key}</code> : 'none',
    ],
    [
      'Replayed answer',
      log.idempotent_replayed ? 'yes: the stored answer to an earlier request with this key' : 'no',
    ],
    ['SDK', log.sdk_name ? `${log.sdk_name} ${log.sdk_version ?? ''}`.trim() : 'none'],
    ['Client address', log.client_address ? <code>{log.client_address}</code> : 'unknown'],
    [
      'User-Agent',
      log.user_agent ? <code className="wrap-anywhere">{log.user_agent}</code> : 'none',
    ],
    [
      'Answer size',
      log.response_bytes === null ? 'unknown' : `${formatCount(log.response_bytes)} bytes`,
    ],
  ];
  return (
    <>
      <p className="lead">
        <code className="wrap-anywhere">
          {log.method} {log.path}
        </code>{' '}
        <span className={statusBadge(log.status)}>{log.status}</span>
      </p>
      <dl className="details">
        {rows.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {log.status >= 400 && (
        <>
          <Body
            title="Request body"
            body={log.request_body}
            truncated={log.request_body_truncated}
            omitted={log.request_body_omitted}
          />
          <Body title="Error body" body={log.error_body} truncated={log.error_body_truncated} />
        </>
      )}
      {log.status < 400 && (
        <p className="muted">Bodies are kept for failed requests (4xx and 5xx) only.</p>
      )}
    </>
  );
}

function Body({
  title,
  body,
  truncated,
  omitted,
}: {
  title: string;
  body: string | null;
  truncated: boolean;
  omitted?: BodyOmission | null;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="section">
      <h2 id={id}>{title}</h2>
      {body === null ? (
        <p className="muted">{omitted ? OMISSIONS[omitted] : 'None.'}</p>
      ) : (
        <>
          <pre className="code-block" tabIndex={0} aria-labelledby={id}>
            <code>{bodyText(body)}</code>
          </pre>
          {truncated && <p className="field-hint">Cut at 4 kB: the rest was not kept.</p>}
        </>
      )}
    </section>
  );
}
