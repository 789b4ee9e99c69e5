import { useCallback, useEffect, useState } from 'react';

export type Resource<T> =
  { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; data: T };

/**
 * Loads `load()` on mount and on `reload()`. `load` must be stable (defined outside the component
 * or memoised). `update` edits the loaded data in place after a successful change.
 */
export function useResource<T>(load: () => Promise<T>) {
  const [resource, setResource] = useState<Resource<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setResource({ status: 'ready', data }),
      (error: unknown) => current && setResource({ status: 'error', error }),
    );
    return () => {
      current = false;
    };
  }, [load, attempt]);

  const reload = useCallback(() => {
    setResource({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);
  const update = useCallback((change: (data: T) => T) => {
    setResource((previous) =>
      previous.status === 'ready' ? { status: 'ready', data: change(previous.data) } : previous,
    );
  }, []);
  return { resource, reload, update };
}
