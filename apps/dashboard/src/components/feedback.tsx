import type { ReactNode } from 'react';
import { describeError } from '../api';

/** A problem to act on; announced when it appears. */
export function ErrorMessage({
  error,
  onRetry,
  id,
}: {
  error: unknown;
  onRetry?: () => void;
  id?: string;
}) {
  return (
    <div className="notice notice-error" role="alert" id={id}>
      <p>{describeError(error)}</p>
      {onRetry && (
        <button type="button" className="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ children }: { children: ReactNode }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {children}
    </p>
  );
}
