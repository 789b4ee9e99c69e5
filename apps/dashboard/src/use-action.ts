import { useState } from 'react';

/**
 * Runs a change one at a time: `busy` while it runs, and the `error` it failed with, cleared when
 * it runs again. A failure ends `busy`; so does a success, unless `staysBusy` (the page or dialog
 * goes away after it, and its button should not come back meanwhile).
 */
export function useAction<Args extends unknown[]>(
  action: (...args: Args) => Promise<void>,
  { staysBusy = false }: { staysBusy?: boolean } = {},
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const run = async (...args: Args) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      if (!staysBusy) setBusy(false);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return { busy, error, setError, run };
}
