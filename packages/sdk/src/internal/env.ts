/** Reads an environment variable where there is one (Node, Deno, Bun); undefined elsewhere. */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name]?.trim();
  return value ? value : undefined;
}

/** A page with a DOM: where an API key would be shipped to every visitor. */
export function isBrowserLike(): boolean {
  const g = globalThis as { window?: { document?: unknown }; document?: unknown };
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined';
}

/** A random v4 UUID from the platform's CSPRNG. */
export function uuid(): string {
  return globalThis.crypto.randomUUID();
}
