/** A listener of an event whose payload is `T`. */
export type Listener<T> = (payload: T) => void;

/**
 * A typed event emitter, no more than a door needs: `on` (which returns its own `off`), `off` and,
 * for the owner, `emit`. A listener that throws is reported to `onListenerError` and does not stop
 * the others, nor the work that emitted.
 */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly onListenerError: (error: unknown, name: keyof Events) => void) {}

  /** Calls `listener` with every `name` event until `off`; returns the function that stops it. */
  on<Name extends keyof Events>(name: Name, listener: Listener<Events[Name]>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener);
    return () => this.off(name, listener);
  }

  /** Stops calling `listener` for `name`. */
  off<Name extends keyof Events>(name: Name, listener: Listener<Events[Name]>): void {
    this.listeners.get(name)?.delete(listener);
  }

  emit<Name extends keyof Events>(name: Name, payload: Events[Name]): void {
    const set = this.listeners.get(name) as Set<Listener<Events[Name]>> | undefined;
    for (const listener of [...(set ?? [])]) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(error, name);
      }
    }
  }
}
