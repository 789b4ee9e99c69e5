import type { ReactNode } from 'react';
import { describeError } from '../api';
import type { Resource } from '../use-resource';

/**
 * A problem to act on; announced when it appears. `error` is what a request threw; `message`, one
 * already worded (a form's refusal, kept by the form).
 */
export function ErrorMessage({
  onRetry,
  id,
  ...problem
}: ({ error: unknown } | { message: string }) & {
  onRetry?: () => void;
  id?: string;
}) {
  return (
    <div className="notice notice-error" role="alert" id={id}>
      <p>{'message' in problem ? problem.message : describeError(problem.error)}</p>
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

/**
 * What a `useResource` has: `loading` by a spinner until its first answer, then the error with a
 * way to try again, or what `children` make of the data.
 */
export function Loaded<T>({
  resource,
  loading,
  onRetry,
  children,
}: {
  resource: Resource<T>;
  loading: string;
  onRetry: () => void;
  children: (data: T) => ReactNode;
}) {
  if (resource.status === 'loading') return <Loading>{loading}</Loading>;
  if (resource.status === 'error') return <ErrorMessage error={resource.error} onRetry={onRetry} />;
  return children(resource.data);
}
