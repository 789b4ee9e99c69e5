import {
  DASHBOARD_API_BASE_PATH,
  DASHBOARD_EXPORTS,
  EXPORT_FORMATS,
  EXPORT_RESOURCES,
  EXPORT_STATUS_FILTERS,
  MAX_ACTIVE_EXPORTS,
  type Export,
  type ExportCreate,
  type ExportResource,
  type ExportStatus,
  type Mode,
} from '@boxoffice/dashboard-contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useRef } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { api, unwrap } from '../api';
import { Checkboxes, CheckboxGroup } from '../components/checkbox-group';
import { CheckedForm } from '../components/checked-form';
import { DataTable } from '../components/data-table';
import { Loaded } from '../components/feedback';
import { SelectField } from '../components/select-field';
import { TextField } from '../components/text-field';
import { fieldsOf, sending } from '../forms';
import { formatBytes, formatCount, formatDateTime } from '../format';
import { useMode } from '../mode';
import { useResource } from '../use-resource';

const loadExports = async () => unwrap(await api.listExports(), 200).data;

/** The names the page gives the lists. */
const RESOURCE_LABELS: Record<ExportResource, string> = {
  events: 'Events',
  tiers: 'Ticket tiers',
  orders: 'Orders',
  tickets: 'Tickets',
  attendees: 'Attendees',
  checkins: 'Check-ins',
  payouts: 'Payouts',
};

const FORMAT_LABELS = { ndjson: 'NDJSON (one JSON object a line)', csv: 'CSV' } as const;

const STATUS_BADGES: Record<ExportStatus, string> = {
  pending: 'status status-warning',
  running: 'status status-warning',
  ready: 'status status-active',
  failed: 'status status-error',
  expired: 'status status-revoked',
};

const isActive = (exported: Export) =>
  exported.status === 'pending' || exported.status === 'running';

/** How long the page waits before it asks again while an export is being made: longer each time. */
const POLL_FIRST_MS = 1_000;
const POLL_MAX_MS = 10_000;

/** Where a link downloads an export's file: it names the mode, which a link sends no header for. */
export const exportFileUrl = (id: string, mode: Mode) =>
  `${DASHBOARD_API_BASE_PATH}/exports/${encodeURIComponent(id)}/file?mode=${mode}`;

export function ExportsPage() {
  const mode = useMode();
  const test = mode === 'test';
  const { resource, reload, update } = useResource(loadExports);
  const exports = resource.status === 'ready' ? resource.data : [];
  const active = exports.filter(isActive).length;
  // Answers in a row with an export still being made: the next wait grows with them.
  const polls = useRef(0);

  // Each answer that shows an export in the making asks again once, later; none, and it stops.
  useEffect(() => {
    if (resource.status !== 'ready' || !resource.data.some(isActive)) {
      polls.current = 0;
      return;
    }
    const wait = Math.min(POLL_FIRST_MS * 2 ** polls.current, POLL_MAX_MS);
    const timer = setTimeout(() => {
      polls.current += 1;
      reload();
    }, wait);
    return () => clearTimeout(timer);
  }, [resource, reload]);

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Exports
      </h1>
      <p className="muted lead">
        Copy a whole list of your {test ? 'test ' : ''}data into one file, made in the background
        from one consistent moment: NDJSON (one JSON object a line, as the API returns it) or CSV. A
        file can be downloaded for 24 hours. At most {MAX_ACTIVE_EXPORTS} exports can be in the
        making at once.
      </p>

      <ExportForm
        full={active >= MAX_ACTIVE_EXPORTS}
        onStarted={(started) => {
          polls.current = 0;
          update((list) => [started, ...list.filter((e) => e.id !== started.id)]);
        }}
      />

      <section aria-labelledby="exports-title" className="section">
        <div className="section-head">
          <h2 id="exports-title">{test ? 'Test exports' : 'Live exports'}</h2>
          <button type="button" className="button button-secondary button-small" onClick={reload}>
            Refresh
          </button>
        </div>
        <Loaded resource={resource} loading="Loading exports…" onRetry={reload}>
          {(list) => (
            <>
              <p className="visually-hidden" role="status">
                {list.length === 0
                  ? 'No exports listed.'
                  : `${formatCount(list.length)} exports shown, ${formatCount(active)} in the making.`}
              </p>
              {list.length === 0 ? (
                <div className="empty">
                  <p>No {test ? 'test ' : ''}exports yet.</p>
                  <p className="muted">Start one above; it appears here while it is made.</p>
                </div>
              ) : (
                <ExportsTable exports={list} mode={mode} />
              )}
            </>
          )}
        </Loaded>
        <p className="muted">The latest {DASHBOARD_EXPORTS} exports are listed, newest first.</p>
      </section>
    </>
  );
}

function ExportsTable({ exports, mode }: { exports: Export[]; mode: Mode }) {
  return (
    <DataTable
      caption="Exports, newest first"
      columns={[
        'Export',
        'Status',
        'Rows',
        { label: 'Size', className: 'column-secondary' },
        { label: 'Created', className: 'column-secondary' },
        { label: 'Expires', className: 'column-secondary' },
        { label: 'File', visuallyHidden: true },
      ]}
    >
      {exports.map((exported) => (
        <tr key={exported.id}>
          <th scope="row">
            {RESOURCE_LABELS[exported.resource]}{' '}
            <span className="muted">({exported.format.toUpperCase()})</span>
            <FiltersSummary filters={exported.filters} />
            <span className="status-detail muted request-id">{exported.id}</span>
          </th>
          <td>
            <span className={STATUS_BADGES[exported.status]}>{exported.status}</span>
            {exported.failure_reason && (
              <span className="status-detail wrap-anywhere">{exported.failure_reason}</span>
            )}
          </td>
          <td>{exported.row_count === null ? '—' : formatCount(exported.row_count)}</td>
          <td className="column-secondary">
            {exported.size_bytes === null ? '—' : formatBytes(exported.size_bytes)}
          </td>
          <td className="column-secondary cell-time">{formatDateTime(exported.created_at)}</td>
          <td className="column-secondary cell-time">
            {exported.expires_at ? formatDateTime(exported.expires_at) : '—'}
          </td>
          <td>
            {exported.status === 'ready' && (
              <a href={exportFileUrl(exported.id, mode)} download>
                Download
                <span className="visually-hidden">
                  {' '}
                  {RESOURCE_LABELS[exported.resource].toLowerCase()} export {exported.id}
                </span>
              </a>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** The filters an export was made with, as the server read them: `status: valid, void`. */
function FiltersSummary({ filters }: { filters: Record<string, unknown> }) {
  const entries = Object.entries(filters);
  if (entries.length === 0) return null;
  return (
    <span className="status-detail muted wrap-anywhere">
      {entries
        .map(
          ([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`,
        )
        .join('; ')}
    </span>
  );
}

const ExportFormSchema = z.object({
  resource: z
    .enum(['', ...EXPORT_RESOURCES])
    .refine((value) => value !== '', 'Choose the list to export.'),
  format: z.enum(EXPORT_FORMATS),
  event_id: z
    .string()
    .trim()
    .regex(/^(evt_[A-Za-z0-9]+)?$/, 'Enter an event ID such as evt_…, or leave it empty.'),
  status: z.array(z.string()),
  since: z.string().refine((value) => value === '' || !Number.isNaN(new Date(value).getTime()), {
    message: 'Enter a date and time, or leave it empty.',
  }),
});
type ExportFormValues = z.input<typeof ExportFormSchema>;

const NEW_EXPORT: ExportFormValues = {
  resource: '',
  format: 'ndjson',
  event_id: '',
  status: [],
  since: '',
};

/** The body of the export the form asks for: the filters the chosen list takes, and no others. */
function exportRequest(values: z.output<typeof ExportFormSchema>): ExportCreate {
  const resource = values.resource;
  const filters: Record<string, unknown> = {};
  if (values.event_id && resource !== 'events') filters.event_id = values.event_id;
  const statuses: readonly string[] | null = EXPORT_STATUS_FILTERS[resource];
  const status = values.status.filter((s) => statuses?.includes(s));
  if (status.length > 0) filters.status = status;
  // The form's time is the browser's local time; the API takes it in UTC.
  if (values.since) {
    filters[resource === 'checkins' ? 'since' : 'updated_since'] = new Date(
      values.since,
    ).toISOString();
  }
  // `resource` decides which filters the server takes: it checks them as its list does.
  return {
    resource,
    format: values.format,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
  };
}

/** Starts an export: which list, its format, and the filters of that list. */
function ExportForm({ full, onStarted }: { full: boolean; onStarted: (started: Export) => void }) {
  const form = useForm({ resolver: zodResolver(ExportFormSchema), defaultValues: NEW_EXPORT });
  const field = fieldsOf(form);
  const resource = useWatch({ control: form.control, name: 'resource' });
  const statuses = resource ? EXPORT_STATUS_FILTERS[resource] : null;
  const id = useId();

  const submit = form.handleSubmit(
    sending(form.setError, async (values: z.output<typeof ExportFormSchema>) => {
      const { data } = unwrap(await api.createExport({ body: exportRequest(values) }), 202);
      form.reset({ ...NEW_EXPORT, resource: values.resource, format: values.format });
      onStarted(data);
    }),
  );

  return (
    <section aria-labelledby={`${id}-title`} className="section card">
      <h2 id={`${id}-title`}>Start an export</h2>
      <CheckedForm
        form={form}
        onSubmit={submit}
        closed={full}
        aria-labelledby={`${id}-title`}
        submit={{
          label: 'Start export',
          busyLabel: 'Starting…',
          'aria-describedby': full ? `${id}-full` : undefined,
        }}
      >
        <div className="filters">
          <SelectField
            label="List"
            none="Choose a list"
            choices={EXPORT_RESOURCES.map((value) => ({ value, label: RESOURCE_LABELS[value] }))}
            {...field('resource')}
          />
          <SelectField
            label="Format"
            choices={EXPORT_FORMATS.map((value) => ({ value, label: FORMAT_LABELS[value] }))}
            {...field('format')}
          />
        </div>
        {resource && (
          <>
            <div className="filters">
              {resource !== 'events' && (
                <TextField
                  label="Event ID (optional)"
                  hint="Only this event’s items."
                  spellCheck={false}
                  autoComplete="off"
                  placeholder="evt_…"
                  maxLength={80}
                  {...field('event_id')}
                />
              )}
              <TextField
                label="Changed since (optional)"
                hint={
                  resource === 'checkins'
                    ? 'Only check-ins received from then on.'
                    : 'Only items changed from then on, your local time.'
                }
                type="datetime-local"
                {...field('since')}
              />
            </div>
            {statuses && (
              <CheckboxGroup legend="Status (any, when none is chosen)">
                <Checkboxes
                  {...form.register('status')}
                  choices={statuses.map((value) => ({ value, label: value.replace('_', ' ') }))}
                />
              </CheckboxGroup>
            )}
          </>
        )}
        {full && (
          <p className="muted" id={`${id}-full`}>
            {MAX_ACTIVE_EXPORTS} exports are being made: start another once one is done.
          </p>
        )}
      </CheckedForm>
    </section>
  );
}
