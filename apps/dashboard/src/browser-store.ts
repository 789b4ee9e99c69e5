/**
 * The listeners of a value the browser keeps (localStorage), for
 * `useSyncExternalStore`: `changed()` tells them of a change this page made, and the window's
 * `event` tells them of one the browser or another tab made, unless `concerns` says it is about
 * something else.
 */
export function browserStore<K extends keyof WindowEventMap>(
  event: K,
  concerns: (event: WindowEventMap[K]) => boolean = () => true,
) {
  const listeners = new Set<() => void>();
  return {
    changed: (): void => {
      listeners.forEach((listener) => listener());
    },
    subscribe: (listener: () => void): (() => void) => {
      listeners.add(listener);
      const fromBrowser = (happened: WindowEventMap[K]) => {
        if (concerns(happened)) listener();
      };
      window.addEventListener(event, fromBrowser);
      return () => {
        listeners.delete(listener);
        window.removeEventListener(event, fromBrowser);
      };
    },
  };
}
