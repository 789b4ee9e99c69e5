import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookMessage,
} from '@boxoffice/dashboard-contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useCallback, useId, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { api, unwrap } from '../api';
import { Checkbox, Checkboxes, CheckboxGroup } from '../components/checkbox-group';
import { CheckedForm } from '../components/checked-form';
import { DataTable } from '../components/data-table';
import { ConfirmDialog, Dialog, DoneAction } from '../components/dialog';
import { ErrorMessage, Loaded } from '../components/feedback';
import { SecretField } from '../components/secret-field';
import { TextField } from '../components/text-field';
import { fieldsOf, sending } from '../forms';
import { formatDateTime } from '../format';
import { useMode } from '../mode';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

type Subscription = WebhookEndpoint['events'][number];

const loadEndpoints = async () => unwrap(await api.listWebhooks(), 200).data;

const enabledClass = (status: string) =>
  status === 'enabled' || status === 'delivered' ? 'status status-active' : 'status status-revoked';

export function WebhooksPage() {
  const test = useMode() === 'test';
  const { resource, reload, update } = useResource(loadEndpoints);
  const [created, setCreated] = useState<{ title: string; secret: string } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const replace = (endpoint: WebhookEndpoint) =>
    update((list) => list.map((e) => (e.id === endpoint.id ? endpoint : e)));

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Webhooks
      </h1>
      <p className="muted lead">
        Boxoffice sends every change (a ticket sold, a door scan, a payout) to the URLs you add
        here, signed with the endpoint’s secret so your server can tell the request is genuine.
        {test && <> In test mode, the endpoints here receive the changes of your test data only.</>}
      </p>

      <EndpointForm
        onSaved={(endpoint) => {
          const { secret, ...shown } = endpoint;
          update((list) => [...list, shown]);
          setCreated({ title: 'Your new webhook endpoint', secret });
        }}
      />

      <section aria-labelledby="endpoints-title" className="section">
        <h2 id="endpoints-title">{test ? 'Test endpoints' : 'Live endpoints'}</h2>
        <p className="visually-hidden" role="status">
          {announcement}
        </p>
        <Loaded resource={resource} loading="Loading endpoints…" onRetry={reload}>
          {(endpoints) =>
            endpoints.length === 0 ? (
              <div className="empty">
                <p>No {test ? 'test ' : ''}webhook endpoints yet.</p>
                <p className="muted">Add one above to start receiving changes.</p>
              </div>
            ) : (
              endpoints.map((endpoint) => (
                <EndpointCard
                  key={endpoint.id}
                  endpoint={endpoint}
                  open={selected === endpoint.id}
                  onToggle={() => setSelected(selected === endpoint.id ? null : endpoint.id)}
                  onChanged={(changed, message) => {
                    replace(changed);
                    setAnnouncement(message);
                  }}
                  onDeleted={() => {
                    update((list) => list.filter((e) => e.id !== endpoint.id));
                    setAnnouncement(`Endpoint ${endpoint.url} deleted.`);
                  }}
                  onSecret={setCreated}
                />
              ))
            )
          }
        </Loaded>
      </section>

      {created && (
        <SecretDialog
          title={created.title}
          secret={created.secret}
          onClose={() => setCreated(null)}
        />
      )}
    </>
  );
}

const EndpointFormSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/, 'Enter the full URL, starting with https://'),
    description: z.string().trim(),
    all: z.boolean(),
    types: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  })
  .superRefine(({ all, types }, context) => {
    if (!all && types.length === 0) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['types'],
        message: 'Choose at least one event type, or all of them.',
      });
    }
  });
type EndpointFormValues = z.input<typeof EndpointFormSchema>;

const NEW_ENDPOINT: EndpointFormValues = { url: '', description: '', all: true, types: [] };

/** Adds an endpoint, or edits one (`endpoint` given). */
function EndpointForm({
  endpoint,
  onSaved,
  onCancel,
}: {
  endpoint?: WebhookEndpoint;
  onSaved: (endpoint: WebhookEndpoint & { secret: string }) => void;
  onCancel?: () => void;
}) {
  const form = useForm({
    resolver: zodResolver(EndpointFormSchema),
    defaultValues: endpoint
      ? {
          url: endpoint.url,
          description: endpoint.description ?? '',
          all: endpoint.events.includes('*'),
          types: endpoint.events.filter((type) => type !== '*'),
        }
      : NEW_ENDPOINT,
  });
  const { register, formState } = form;
  const { errors } = formState;
  // The types to choose from are shown only while "All events" is off.
  const all = useWatch({ control: form.control, name: 'all' });
  const id = useId();

  const submit = form.handleSubmit(
    sending(form.setError, async ({ url, description, all, types }) => {
      const body = {
        url,
        description: description || null,
        events: all ? (['*'] as Subscription[]) : types,
      };
      if (endpoint) {
        const { data } = unwrap(
          await api.updateWebhook({ params: { id: endpoint.id }, body }),
          200,
        );
        onSaved({ ...data, secret: '' });
      } else {
        const { data } = unwrap(await api.createWebhook({ body }), 201);
        form.reset(NEW_ENDPOINT);
        onSaved(data);
      }
    }),
  );

  return (
    <section aria-labelledby={`${id}-title`} className={endpoint ? undefined : 'section card'}>
      {!endpoint && <h2 id={`${id}-title`}>Add an endpoint</h2>}
      <CheckedForm
        form={form}
        onSubmit={submit}
        aria-label={endpoint ? 'Edit endpoint' : undefined}
        submit={{ label: endpoint ? 'Save changes' : 'Add endpoint', busyLabel: 'Saving…' }}
        row={{
          className: 'dialog-actions',
          before: onCancel && (
            <button type="button" className="button button-secondary" onClick={onCancel}>
              Cancel
            </button>
          ),
        }}
      >
        <TextField
          label="Endpoint URL"
          hint="Where to send the changes: an https URL of your server that accepts POST requests."
          type="text"
          inputMode="url"
          autoComplete="off"
          {...fieldsOf(form)('url')}
          maxLength={2048}
          required
        />
        <TextField
          label="Description (optional)"
          autoComplete="off"
          {...register('description')}
          maxLength={500}
        />
        <CheckboxGroup legend="Events to send" error={errors.types?.message}>
          <Checkbox label="All events, including types added later" {...register('all')} />
          {!all && (
            <Checkboxes
              {...register('types')}
              choices={WEBHOOK_EVENT_TYPES.map((type) => ({
                value: type,
                label: <code>{type}</code>,
              }))}
              invalid={Boolean(errors.types)}
            />
          )}
        </CheckboxGroup>
      </CheckedForm>
    </section>
  );
}

function EndpointCard({
  endpoint,
  open,
  onToggle,
  onChanged,
  onDeleted,
  onSecret,
}: {
  endpoint: WebhookEndpoint;
  open: boolean;
  onToggle: () => void;
  onChanged: (endpoint: WebhookEndpoint, announcement: string) => void;
  onDeleted: () => void;
  onSecret: (secret: { title: string; secret: string }) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<'delete' | 'rotate' | null>(null);
  const [notice, setNotice] = useState('');
  const enabled = endpoint.status === 'enabled';
  const name = endpoint.description ?? endpoint.url;

  const toggle = useAction(async () => {
    const { data } = unwrap(
      await api.updateWebhook({
        params: { id: endpoint.id },
        body: { status: enabled ? 'disabled' : 'enabled' },
      }),
      200,
    );
    onChanged(data, `Endpoint ${enabled ? 'disabled' : 'enabled'}.`);
  });
  const reveal = useAction(async () => {
    const { data } = unwrap(await api.revealWebhookSecret({ params: { id: endpoint.id } }), 200);
    onSecret({ title: 'Signing secret', secret: data.secret });
  });
  const test = useAction(async () => {
    unwrap(await api.testWebhook({ params: { id: endpoint.id } }), 202);
    setNotice('Test event sent. It appears under Deliveries in a moment.');
  });
  const rotate = useAction(
    async () => {
      const { data } = unwrap(await api.rotateWebhookSecret({ params: { id: endpoint.id } }), 200);
      setConfirm(null);
      onSecret({ title: 'Your new signing secret', secret: data.secret });
    },
    { staysBusy: false },
  );
  const remove = useAction(
    async () => {
      unwrap(await api.deleteWebhook({ params: { id: endpoint.id } }), 200);
      onDeleted();
    },
    { staysBusy: true },
  );
  const problem = toggle.error ?? reveal.error ?? test.error;
  // What each confirmation says, and the action it confirms.
  const confirmation = {
    delete: {
      title: 'Delete this endpoint?',
      confirmLabel: 'Delete endpoint',
      busyLabel: 'Deleting…',
      action: remove,
      body: (
        <p>
          Nothing more is sent to <code>{endpoint.url}</code>, and its delivery history is deleted.
        </p>
      ),
    },
    rotate: {
      title: 'Rotate the signing secret?',
      confirmLabel: 'Rotate secret',
      busyLabel: 'Rotating…',
      action: rotate,
      body: (
        <p>
          A new secret signs from now on. For 24 hours the current one signs too (each request
          carries both signatures), so your server keeps accepting requests while you switch.
        </p>
      ),
    },
  };

  return (
    <article className="section card" aria-label={`Endpoint ${name}`}>
      <h3 className="endpoint-url">
        <code>{endpoint.url}</code>
        {!endpoint.livemode && <span className="badge badge-test">test</span>}
      </h3>
      {endpoint.description && <p className="muted">{endpoint.description}</p>}
      <p>
        <span className={enabledClass(endpoint.status)}>{endpoint.status}</span>{' '}
        {endpoint.disabled_reason && <span className="muted">({endpoint.disabled_reason})</span>}
      </p>
      <ul className="tags" aria-label="Events">
        {endpoint.events.map((type) => (
          <li key={type} className="tag">
            {type === '*' ? 'all events' : type}
          </li>
        ))}
      </ul>
      <div className="endpoint-actions">
        <button type="button" className="button button-secondary" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" className="button button-secondary" onClick={() => void toggle.run()}>
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" className="button button-secondary" onClick={() => void reveal.run()}>
          Reveal secret
        </button>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => setConfirm('rotate')}
        >
          Rotate secret
        </button>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void test.run()}
          aria-disabled={!enabled}
        >
          Send test event
        </button>
        <button
          type="button"
          className="button button-secondary"
          onClick={onToggle}
          aria-expanded={open}
        >
          {open ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <button
          type="button"
          className="button button-danger-quiet"
          onClick={() => setConfirm('delete')}
        >
          Delete
        </button>
      </div>
      <p role="status" className="muted">
        {notice}
      </p>
      {problem !== null && <ErrorMessage error={problem} />}
      {open && <Deliveries endpointId={endpoint.id} />}

      {editing && (
        <Dialog title="Edit endpoint" onClose={() => setEditing(false)}>
          <EndpointForm
            endpoint={endpoint}
            onCancel={() => setEditing(false)}
            onSaved={({ secret: _secret, ...saved }) => {
              setEditing(false);
              onChanged(saved, 'Endpoint saved.');
            }}
          />
        </Dialog>
      )}
      {confirm !== null && (
        <ConfirmDialog
          title={confirmation[confirm].title}
          cancelLabel="Cancel"
          confirmLabel={confirmation[confirm].confirmLabel}
          busyLabel={confirmation[confirm].busyLabel}
          busy={confirmation[confirm].action.busy}
          error={confirmation[confirm].action.error}
          onCancel={() => setConfirm(null)}
          onConfirm={() => void confirmation[confirm].action.run()}
        >
          {confirmation[confirm].body}
        </ConfirmDialog>
      )}
    </article>
  );
}

function Deliveries({ endpointId }: { endpointId: string }) {
  const load = useCallback(
    async () => unwrap(await api.listWebhookMessages({ params: { id: endpointId } }), 200).data,
    [endpointId],
  );
  const { resource, reload } = useResource(load);
  const [resent, setResent] = useState('');
  const resend = useAction(async (message: WebhookMessage) => {
    unwrap(await api.resendWebhookMessage({ params: { id: message.id } }), 202);
    setResent(`Message ${message.id} queued to be sent again.`);
  });

  return (
    <section aria-label="Deliveries" className="section">
      <div className="endpoint-actions">
        <button type="button" className="button button-secondary button-small" onClick={reload}>
          Refresh deliveries
        </button>
      </div>
      <p role="status" className="muted">
        {resent}
      </p>
      {resend.error !== null && <ErrorMessage error={resend.error} />}
      <Loaded resource={resource} loading="Loading deliveries…" onRetry={reload}>
        {(messages) =>
          messages.length === 0 ? (
            <p className="muted">Nothing sent yet.</p>
          ) : (
            <DataTable
              caption="Latest messages, newest first"
              columns={[
                'Event',
                { label: 'Made', className: 'column-secondary' },
                'Status',
                'Attempts',
                { label: 'Actions', visuallyHidden: true },
              ]}
            >
              {messages.map((message) => (
                <tr key={message.id}>
                  <th scope="row">
                    <code>{message.type}</code>
                    <span className="status-detail muted message-id">{message.id}</span>
                  </th>
                  <td className="column-secondary">
                    <time dateTime={message.created_at}>{formatDateTime(message.created_at)}</time>
                  </td>
                  <td>
                    <span className={enabledClass(message.status)}>{message.status}</span>
                  </td>
                  <td>
                    <ol className="attempts">
                      {message.attempts.map((attempt, i) => (
                        <li key={i}>
                          <time dateTime={attempt.attempted_at}>
                            {formatDateTime(attempt.attempted_at)}
                          </time>
                          : {attempt.status_code ?? '—'} in {attempt.duration_ms} ms
                          {attempt.error && <> ({attempt.error})</>}
                          {attempt.response_excerpt && (
                            <span className="status-detail muted">
                              {attempt.response_excerpt.slice(0, 200)}
                            </span>
                          )}
                        </li>
                      ))}
                    </ol>
                  </td>
                  <td className="cell-actions">
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      onClick={() => void resend.run(message)}
                      aria-label={`Resend ${message.type} ${message.id}`}
                    >
                      Resend
                    </button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
    </section>
  );
}

function SecretDialog({
  title,
  secret,
  onClose,
}: {
  title: string;
  secret: string;
  onClose: () => void;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <SecretField label="Signing secret" secret={secret} noun="secret" />
      <p>
        Verify each request with it: <code>client.webhooks.unwrap(body, headers, secret)</code> in
        the SDK, or any Standard Webhooks library. Keep it on your server only.
      </p>
      <DoneAction onDone={onClose} />
    </Dialog>
  );
}
