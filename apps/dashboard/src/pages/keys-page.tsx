import { ScopeSchema, type ApiKey } from '@boxoffice/dashboard-contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@tanstack/react-router';
import { useEffect, useId, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { api, unwrap } from '../api';
import { Checkboxes, CheckboxGroup } from '../components/checkbox-group';
import { CheckedForm } from '../components/checked-form';
import { DataTable } from '../components/data-table';
import { ConfirmDialog, Dialog, DoneAction } from '../components/dialog';
import { Loaded } from '../components/feedback';
import { FreePlanBanner } from '../components/free-plan-banner';
import { NameField } from '../components/fields';
import { SecretField } from '../components/secret-field';
import { fieldsOf, sending } from '../forms';
import { formatCount, formatDateTime } from '../format';
import { useMode } from '../mode';
import { useSignedIn } from '../session';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

type Scope = ApiKey['scopes'][number];

const SCOPES: { scope: Scope; label: string; help: string }[] = [
  {
    scope: 'read',
    label: 'read',
    help: 'Read events, tiers, orders, tickets, attendees, check-ins and payouts.',
  },
  { scope: 'write', label: 'write', help: 'Create and update events and ticket tiers.' },
  {
    scope: 'checkins:write',
    label: 'checkins:write',
    help: 'Check tickets in at the door. Door apps need read + checkins:write.',
  },
];

const loadKeys = async () => unwrap(await api.listKeys(), 200);

export function KeysPage() {
  const { organisation } = useSignedIn();
  const test = useMode() === 'test';
  const { resource, reload, update } = useResource(loadKeys);
  const limit =
    resource.status === 'ready'
      ? {
          active: resource.data.data.filter((key) => key.status === 'active').length,
          max: resource.data.max_active_keys,
        }
      : undefined;
  const [created, setCreated] = useState<{ key: ApiKey; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const keysHeading = useRef<HTMLHeadingElement>(null);

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        API keys
      </h1>
      <p className="muted lead">
        Keys let your own servers call the Boxoffice API (<code>/api/v1</code>) for{' '}
        {organisation.name}. Each key carries only the scopes you give it.
        {test && (
          <>
            {' '}
            In test mode you generate test keys (<code>bxo_test_…</code>): they see and change only
            your test data: sample events, orders and tickets to build and try an integration on.
          </>
        )}
      </p>
      {organisation.plan === 'free' && <FreePlanBanner />}

      <GenerateKeyForm
        limit={limit}
        onCreated={(result) => {
          update((list) => ({ ...list, data: [result.key, ...list.data] }));
          setCreated(result);
        }}
      />

      <section aria-labelledby="keys-title" className="section">
        <h2 id="keys-title" ref={keysHeading} tabIndex={-1}>
          {test ? 'Your test keys' : 'Your live keys'}
        </h2>
        <p className="visually-hidden" role="status">
          {announcement}
        </p>
        <Loaded resource={resource} loading="Loading keys…" onRetry={reload}>
          {({ data: keys }) =>
            keys.length === 0 ? (
              <div className="empty">
                <p>No API keys yet.</p>
                <p className="muted">Generate one above; its secret is shown once, right after.</p>
              </div>
            ) : (
              <KeysTable keys={keys} test={test} onRevoke={setRevoking} />
            )
          }
        </Loaded>
      </section>

      {created && (
        <SecretDialog
          name={created.key.name}
          secret={created.secret}
          test={!created.key.livemode}
          freePlan={organisation.plan === 'free'}
          onClose={() => {
            // Forget the raw key: it is never shown again.
            setCreated(null);
            setAnnouncement(
              organisation.plan === 'free'
                ? `Key “${created.key.name}” created. The API refuses it (402) until you upgrade to Pro.`
                : `Key “${created.key.name}” is ready to use.`,
            );
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onCancel={() => setRevoking(null)}
          onRevoked={(key) => {
            update((list) => ({
              ...list,
              data: list.data.map((k) => (k.id === key.id ? key : k)),
            }));
            setRevoking(null);
            setAnnouncement(`Key “${key.name}” revoked.`);
            // Its Revoke button is gone: continue from the list's heading.
            requestAnimationFrame(() => keysHeading.current?.focus());
          }}
        />
      )}
    </>
  );
}

const KeyFormSchema = z.object({
  name: z.string().trim().min(1, 'Give the key a name, such as the app that will use it.'),
  scopes: z.array(ScopeSchema).min(1, 'Choose at least one scope.'),
});
type KeyFormValues = z.input<typeof KeyFormSchema>;

const NEW_KEY: KeyFormValues = { name: '', scopes: ['read'] };

function GenerateKeyForm({
  limit,
  onCreated,
}: {
  /** Active keys and the most the organisation may have; unknown while the list loads. */
  limit: { active: number; max: number } | undefined;
  onCreated: (result: { key: ApiKey; secret: string }) => void;
}) {
  const form = useForm({ resolver: zodResolver(KeyFormSchema), defaultValues: NEW_KEY });
  const { register, formState } = form;
  const { errors, isSubmitting } = formState;
  const id = useId();

  const full = limit !== undefined && limit.active >= limit.max;

  const submit = form.handleSubmit(
    sending(form.setError, async (body) => {
      const { data } = unwrap(await api.createKey({ body }), 201);
      form.reset(NEW_KEY);
      onCreated(data);
    }),
  );

  return (
    <section aria-labelledby={`${id}-title`} className="section card">
      <h2 id={`${id}-title`}>Generate a key</h2>
      {limit && (
        <p className="muted" id={`${id}-count`}>
          {limit.active} of {limit.max} active keys.
        </p>
      )}
      {full && (
        <div className="notice notice-warning" id={`${id}-full`}>
          <p>
            Your organisation has {limit.max} active keys, the most it can have. Revoke a key you no
            longer use, then generate a new one.
          </p>
        </div>
      )}
      <CheckedForm
        form={form}
        onSubmit={submit}
        closed={full}
        submit={{
          label: 'Generate key',
          busyLabel: 'Generating…',
          'aria-disabled': isSubmitting || full,
          'aria-describedby': full ? `${id}-full` : undefined,
        }}
      >
        <NameField
          label="Key name"
          hint="Where it will be used, e.g. “Door app” or “Nightly sync”."
          {...fieldsOf(form)('name')}
        />
        <CheckboxGroup legend="Scopes" error={errors.scopes?.message}>
          <Checkboxes
            {...register('scopes')}
            choices={SCOPES.map(({ scope, label, help }) => ({
              value: scope,
              label: <code>{label}</code>,
              hint: help,
            }))}
            invalid={Boolean(errors.scopes)}
          />
        </CheckboxGroup>
      </CheckedForm>
    </section>
  );
}

function KeysTable({
  keys,
  test,
  onRevoke,
}: {
  keys: ApiKey[];
  test: boolean;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <DataTable
      caption={test ? 'Test API keys, newest first' : 'Live API keys, newest first'}
      columns={[
        'Name',
        'Key',
        'Scopes',
        'Created',
        'Last used',
        'Requests (24 h)',
        'Status',
        { label: 'Actions', visuallyHidden: true },
      ]}
    >
      {keys.map((key) => (
        <tr key={key.id} className={key.status === 'revoked' ? 'row-revoked' : undefined}>
          <th scope="row" className="key-name">
            {key.name}
          </th>
          <td>
            <code>{key.hint}</code>
            {!key.livemode && <span className="badge badge-test">test</span>}
          </td>
          <td>
            <ul className="tags" aria-label="Scopes">
              {key.scopes.map((scope) => (
                <li key={scope} className="tag">
                  {scope}
                </li>
              ))}
            </ul>
          </td>
          <td>
            <time dateTime={key.created_at}>{formatDateTime(key.created_at)}</time>
          </td>
          <td>
            {key.last_used_at ? (
              <time dateTime={key.last_used_at}>{formatDateTime(key.last_used_at)}</time>
            ) : (
              <span className="muted">never</span>
            )}
          </td>
          <td>
            {key.requests_24h > 0 ? (
              <Link
                to="/logs"
                search={{ key_id: key.id }}
                aria-label={`${formatCount(key.requests_24h)} requests in the last 24 hours: the logs of ${key.name}`}
              >
                {formatCount(key.requests_24h)}
              </Link>
            ) : (
              <span className="muted">0</span>
            )}
          </td>
          <td>
            <span className={`status status-${key.status}`}>{key.status}</span>
            {key.revoked_at && (
              <span className="status-detail muted">
                <time dateTime={key.revoked_at}>{formatDateTime(key.revoked_at)}</time>
              </span>
            )}
          </td>
          <td className="cell-actions">
            {key.status === 'active' && (
              <button
                type="button"
                className="button button-danger-quiet"
                onClick={() => onRevoke(key)}
                aria-label={`Revoke ${key.name}`}
              >
                Revoke
              </button>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function SecretDialog({
  name,
  secret,
  test,
  freePlan,
  onClose,
}: {
  name: string;
  secret: string;
  /** A test key: it reaches the test data only. */
  test: boolean;
  /** On the Free plan the API refuses the key: say so before the user tries it. */
  freePlan: boolean;
  onClose: () => void;
}) {
  // Copied with the button, or by hand from the field.
  const [copied, setCopied] = useState(false);
  // Closing before copying asks first: the secret cannot be shown again.
  const [asking, setAsking] = useState(false);
  const stayRef = useRef<HTMLButtonElement>(null);
  const copyRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const origin = window.location.origin;

  useEffect(() => {
    // Asking focuses the way back; going back, whose button is then gone, the key's Copy button.
    if (asking) stayRef.current?.focus();
    else if (asked.current) copyRef.current?.focus();
    asked.current = asking;
  }, [asking]);

  const requestClose = () => (copied ? onClose() : setAsking(true));

  return (
    // Escape while asking goes back to the key; it never discards an uncopied one.
    <Dialog title="Your new API key" onClose={asking ? () => setAsking(false) : requestClose}>
      <p>
        The key <strong className="key-name">{name}</strong> is {freePlan ? 'created' : 'ready'}.
        Copy it now.
      </p>
      {test && (
        <p>
          It is a <strong>test key</strong>: it sees and changes only your test data, never live
          data.
        </p>
      )}
      <SecretField
        label="Secret key"
        secret={secret}
        noun="key"
        onCopied={() => setCopied(true)}
        copyRef={copyRef}
      />
      <div className="notice notice-warning">
        <p>
          <strong>This key cannot be shown again.</strong> Keep it on your server, in an environment
          variable such as <code>BOXOFFICE_API_KEY</code>: never in browser code, a mobile app or a
          repository.
        </p>
      </div>
      <p>Try it:</p>
      {freePlan && (
        <p className="field-hint">
          Your organisation is on the Free plan: until you upgrade to Pro, the API answers this with{' '}
          <code>402 Payment Required</code>.
        </p>
      )}
      <pre className="code-block">
        <code>{`export BOXOFFICE_API_KEY='<the key above>'\ncurl -H "Authorization: Bearer $BOXOFFICE_API_KEY" ${origin}/api/v1/events`}</code>
      </pre>
      {asking ? (
        <>
          <div className="notice notice-warning" role="alert">
            <p>
              <strong>You have not copied this key.</strong> Once you close this window it is gone
              for good: you would have to generate another one.
            </p>
          </div>
          <div className="dialog-actions">
            <button
              type="button"
              className="button button-secondary"
              onClick={() => setAsking(false)}
              ref={stayRef}
            >
              Back to the key
            </button>
            <button type="button" className="button button-danger" onClick={onClose}>
              Close without copying
            </button>
          </div>
        </>
      ) : (
        <DoneAction onDone={requestClose} />
      )}
    </Dialog>
  );
}

function RevokeDialog({
  apiKey,
  onCancel,
  onRevoked,
}: {
  apiKey: ApiKey;
  onCancel: () => void;
  onRevoked: (key: ApiKey) => void;
}) {
  // The dialog closes once the key is revoked.
  const {
    busy,
    error,
    run: revoke,
  } = useAction(
    async () => {
      const { data } = unwrap(await api.revokeKey({ params: { id: apiKey.id } }), 200);
      onRevoked(data);
    },
    { staysBusy: true },
  );

  return (
    <ConfirmDialog
      title={`Revoke “${apiKey.name}”?`}
      cancelLabel="Cancel"
      confirmLabel="Revoke key"
      busyLabel="Revoking…"
      busy={busy}
      error={error}
      onCancel={onCancel}
      onConfirm={() => void revoke()}
    >
      <p>
        Requests made with <code>{apiKey.hint}</code> are refused from the next one on. Anything
        still using it stops working. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
