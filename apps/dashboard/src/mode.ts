import type { Mode } from '@boxoffice/dashboard-contract';
import { useSyncExternalStore } from 'react';
import { browserStore } from './browser-store';

/**
 * Live or test mode: which of the organisation's two environments the keys and webhooks pages show
 * and change. Kept in localStorage rather than in the address: it is a setting of this browser, so
 * it survives reloads, new tabs and every link and redirect (sign-in's `?next=`), none of which
 * has to carry it; and all tabs follow a switch at once, so no tab keeps showing the other mode.
 */
const STORAGE_KEY = 'boxoffice.dashboard.mode';

/** Where the mode is kept when the browser refuses storage (private modes, blocked site data). */
let unstored: Mode = 'live';

// Another tab switched (a `null` key: it cleared the storage).
const store = browserStore('storage', (event) => event.key === STORAGE_KEY || event.key === null);

function stored(): Mode {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === 'test' ? 'test' : 'live';
  } catch {
    return unstored;
  }
}

/** The mode now: what every request to the dashboard's API says (`api.ts`). */
export const currentMode = (): Mode => stored();

export function setMode(mode: Mode): void {
  unstored = mode;
  try {
    window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // Kept for this page only.
  }
  store.changed();
}

/** The mode, re-rendering when it changes here or in another tab. */
export function useMode(): Mode {
  return useSyncExternalStore(store.subscribe, currentMode);
}
