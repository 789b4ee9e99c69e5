import { useCallback, useEffect, useRef, useState } from 'react';

export type Resource<T> =
  { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; data: T };

/**
 * Loads `load()` on mount and on `reload()`. `load` must be stable (defined outside the component
 * or memoised). `update` edits the loaded data in place after a successful change; a change made
 * while a load is under way asks again, as that answer may have been read before the change, and
 * so does one made while a failed load's error is shown.
 *
 * A reload keeps what is shown until its answer replaces it (a refresh does not blank the table),
 * and the answer of the latest request wins: an earlier one that arrives later is dropped, while
 * a reload never throws away the answer of one still under way.
 */
export function useResource<T>(load: () => Promise<T>) {
  const [resource, setResource] = useState<Resource<T>>({ status: 'loading' });
  const requested = useRef(0);
  const shown = useRef(0);
  /** Whether what is shown is an error: the last answer failed. */
  const failed = useRef(false);

  const fetch = useCallback(() => {
    const request = ++requested.current;
    const show = (next: Resource<T>) => {
      if (request <= shown.current) return;
      shown.current = request;
      failed.current = next.status === 'error';
      setResource(next);
    };
    load().then(
      (data) => show({ status: 'ready', data }),
      (error: unknown) => show({ status: 'error', error }),
    );
  }, [load]);

  useEffect(fetch, [fetch]);

  const reload = useCallback(() => {
    setResource((previous) => (previous.status === 'ready' ? previous : { status: 'loading' }));
    failed.current = false;
    fetch();
  }, [fetch]);
  const update = useCallback(
    (change: (data: T) => T) => {
      setResource((previous) =>
        previous.status === 'ready' ? { status: 'ready', data: change(previous.data) } : previous,
      );
      if (requested.current > shown.current) {
        // The answer under way may predate the change: drop it, and ask again.
        shown.current = requested.current;
        fetch();
      } else if (failed.current) {
        // The list could not be shown; the change that just worked says to try again.
        reload();
      }
    },
    [fetch, reload],
  );
  return { resource, reload, update };
}
