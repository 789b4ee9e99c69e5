import { Link } from '@tanstack/react-router';

/** On the free plan keys can be generated, but the API refuses every request made with them. */
export function FreePlanBanner({ showLink = true }: { showLink?: boolean }) {
  return (
    <aside className="notice notice-warning" aria-labelledby="free-plan-banner-title">
      <h2 id="free-plan-banner-title" className="notice-title">
        Your organisation is on the Free plan
      </h2>
      <p>
        You can generate API keys, but every API request made with them is refused with{' '}
        <code>402 Payment Required</code> until you upgrade to Pro.
      </p>
      {showLink && (
        <p>
          <Link to="/settings/plan">See plans and upgrade</Link>
        </p>
      )}
    </aside>
  );
}
