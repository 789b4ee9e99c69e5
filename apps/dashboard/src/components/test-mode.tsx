import type { TestDataCounts } from '@boxoffice/dashboard-contract';
import { useState } from 'react';
import { api, unwrap } from '../api';
import { setMode, useMode } from '../mode';
import { useAction } from '../use-action';
import { ConfirmDialog } from './dialog';

/** The header's switch between live and test data; every page follows it. */
export function ModeSwitch() {
  const on = useMode() === 'test';
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      className={on ? 'mode-switch mode-switch-on' : 'mode-switch'}
      onClick={() => setMode(on ? 'live' : 'test')}
    >
      <span className="mode-switch-track" aria-hidden="true">
        <span className="mode-switch-thumb" />
      </span>
      Test mode
    </button>
  );
}

const NOUNS: [keyof TestDataCounts, string, string][] = [
  ['events', 'event', 'events'],
  ['tiers', 'ticket tier', 'ticket tiers'],
  ['orders', 'order', 'orders'],
  ['tickets', 'ticket', 'tickets'],
  ['attendees', 'attendee', 'attendees'],
  ['checkins', 'check-in', 'check-ins'],
  ['payouts', 'payout', 'payouts'],
];

/** "3 events, 6 ticket tiers, … and 4 payouts". */
function describeCounts(counts: TestDataCounts): string {
  const parts = NOUNS.map(
    ([field, one, many]) => `${counts[field]} ${counts[field] === 1 ? one : many}`,
  );
  return `${parts.slice(0, -1).join(', ')} and ${parts.slice(-1).join('')}`;
}

/**
 * Shown on every page while test mode is on: says so, and offers to reset the test data (after
 * confirming). `onReset` runs once it has been reset, to show the page's data afresh.
 */
export function TestModeBanner({ onReset }: { onReset: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [report, setReport] = useState('');
  const reset = useAction(async () => {
    const { data } = unwrap(await api.resetTestEnvironment(), 200);
    setConfirming(false);
    setReport(
      `Test data reset: fresh sample data of ${describeCounts(data)}. Your test keys and webhook endpoints are unchanged.`,
    );
    onReset();
  });

  return (
    <aside className="test-banner" aria-label="Test mode">
      <div className="test-banner-inner">
        <p className="test-banner-text">
          <strong>Test mode: you are viewing test data.</strong> Keys and webhook endpoints here
          belong to your test environment and never touch live data.
        </p>
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => {
            setReport('');
            setConfirming(true);
          }}
        >
          Reset test data
        </button>
        <p className="test-banner-report" role="status">
          {report}
        </p>
      </div>
      {confirming && (
        <ConfirmDialog
          title="Reset the test data?"
          cancelLabel="Keep test data"
          confirmLabel="Reset test data"
          busyLabel="Resetting…"
          busy={reset.busy}
          error={reset.error}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void reset.run()}
        >
          <p>
            Every event, ticket tier, order, ticket, attendee, check-in and payout of your test
            environment is deleted, with its webhook deliveries, and fresh sample data takes its
            place. Your test keys and webhook endpoints stay. Live data is not touched.
          </p>
        </ConfirmDialog>
      )}
    </aside>
  );
}
