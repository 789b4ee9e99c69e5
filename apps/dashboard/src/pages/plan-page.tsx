import type { Plan, PlanState } from '@boxoffice/dashboard-contract';
import { useState } from 'react';
import { api, unwrap } from '../api';
import { BusyButton } from '../components/busy-button';
import { ConfirmDialog } from '../components/dialog';
import { ErrorMessage, Loaded } from '../components/feedback';
import { FreePlanBanner } from '../components/free-plan-banner';
import { formatDateTime, planName } from '../format';
import { useMode } from '../mode';
import { useSignedIn } from '../session';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const loadPlan = async () => unwrap(await api.getPlan(), 200).data;

const PLANS: Record<Plan, { summary: string; features: string[] }> = {
  free: {
    summary: 'The dashboard, and API keys that are refused until you upgrade.',
    features: [
      'Generate and revoke API keys',
      'Every API request made with a key is refused (402)',
    ],
  },
  pro: {
    summary: 'Full access to the Boxoffice API with your keys.',
    features: [
      'Events, tiers, orders, tickets, attendees and payouts over the API',
      'Door check-ins from your own apps',
    ],
  },
};

export function PlanPage() {
  const { user, updateOrganisation } = useSignedIn();
  const { resource, reload, update } = useResource(loadPlan);
  const [confirmDowngrade, setConfirmDowngrade] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const test = useMode() === 'test';

  const {
    busy,
    error,
    setError,
    run: change,
  } = useAction(async (plan: Plan) => {
    const { data } = unwrap(await api.setPlan({ body: { plan } }), 200);
    update(() => data);
    updateOrganisation({ plan: data.plan, plan_changed_at: data.plan_changed_at });
    setAnnouncement(`Your organisation is now on the ${planName(data.plan)} plan.`);
    setConfirmDowngrade(false);
  });

  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Plan
      </h1>
      {test && (
        <p className="muted lead">
          One plan covers live and test mode: test keys get the same answers as live ones.
        </p>
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <Loaded resource={resource} loading="Loading your plan…" onRetry={reload}>
        {(state) => (
          <>
            {state.plan === 'free' && <FreePlanBanner showLink={false} />}
            <div className="plans">
              <CurrentPlan
                state={state}
                busy={busy}
                onDowngrade={() => setConfirmDowngrade(true)}
              />
              {state.plan === 'free' && (
                <ProOffer busy={busy} onUpgrade={() => void change('pro')} />
              )}
            </div>
            {error !== null && !confirmDowngrade && <ErrorMessage error={error} />}
            <History state={state} userId={user.id} />
          </>
        )}
      </Loaded>
      {confirmDowngrade && (
        <ConfirmDialog
          title="Downgrade to Free?"
          cancelLabel="Stay on Pro"
          confirmLabel="Downgrade to Free"
          busyLabel="Downgrading…"
          busy={busy}
          error={error}
          onCancel={() => {
            setConfirmDowngrade(false);
            setError(null);
          }}
          onConfirm={() => void change('free')}
        >
          <p>
            From now on the API refuses every request made with your keys (402). The keys stay, and
            work again as soon as you upgrade.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function CurrentPlan({
  state,
  busy,
  onDowngrade,
}: {
  state: PlanState;
  busy: boolean;
  onDowngrade: () => void;
}) {
  const details = PLANS[state.plan];
  return (
    <section className="section card plan-card" aria-labelledby="current-plan-title">
      <h2 id="current-plan-title">
        Current plan: <span className={`plan-name plan-${state.plan}`}>{planName(state.plan)}</span>
      </h2>
      <p className="muted">
        {state.plan_changed_at ? (
          <>
            Since{' '}
            <time dateTime={state.plan_changed_at}>{formatDateTime(state.plan_changed_at)}</time>
          </>
        ) : (
          'Since the organisation was created'
        )}
      </p>
      <p>{details.summary}</p>
      <Features plan={state.plan} />
      {state.plan === 'pro' && (
        <>
          <button
            type="button"
            className="button button-secondary"
            onClick={onDowngrade}
            aria-disabled={busy}
          >
            Downgrade to Free
          </button>
          <p className="field-hint">Changes take effect immediately.</p>
        </>
      )}
    </section>
  );
}

/** What Pro adds, shown on Free before asking to upgrade. */
function ProOffer({ busy, onUpgrade }: { busy: boolean; onUpgrade: () => void }) {
  return (
    <section className="section card plan-card plan-offer" aria-labelledby="pro-plan-title">
      <h2 id="pro-plan-title">
        <span className="plan-name plan-pro">Pro</span>
      </h2>
      <p className="muted">What upgrading gives you</p>
      <p>{PLANS.pro.summary}</p>
      <Features plan="pro" />
      <BusyButton
        className="button button-primary"
        onClick={onUpgrade}
        busy={busy}
        busyLabel="Upgrading…"
      >
        Upgrade to Pro
      </BusyButton>
      <p className="field-hint">Changes take effect immediately; your keys work from then on.</p>
    </section>
  );
}

function Features({ plan }: { plan: Plan }) {
  return (
    <ul className="features">
      {PLANS[plan].features.map((feature) => (
        <li key={feature}>{feature}</li>
      ))}
    </ul>
  );
}

/** `changed_by` is a user id, or null when Boxoffice changed the plan for you. */
function changedBy(by: string | null, userId: string): string {
  if (by === null) return 'by Boxoffice';
  return by === userId ? 'by you' : 'by another member of your organisation';
}

function History({ state, userId }: { state: PlanState; userId: string }) {
  return (
    <section className="section" aria-labelledby="plan-history-title">
      <h2 id="plan-history-title">History</h2>
      {state.history.length === 0 ? (
        <p className="empty">
          No changes yet: the organisation has been on the {planName(state.plan)} plan since it was
          created.
        </p>
      ) : (
        <ol className="history">
          {state.history.map((entry) => (
            <li key={`${entry.changed_at}-${entry.to}`}>
              <span className="history-change">
                {entry.from === 'free' ? 'Upgraded' : 'Downgraded'} from {planName(entry.from)} to{' '}
                {planName(entry.to)}
              </span>
              <span className="muted">
                <time dateTime={entry.changed_at}>{formatDateTime(entry.changed_at)}</time>
                {` ${changedBy(entry.changed_by, userId)}`}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
