/** The display's settings, from the environment. */
export interface DisplayConfig {
  /** The endpoint's signing secret (`whsec_…`), shown when the endpoint was made. */
  secret: string;
  port: number;
  host: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): DisplayConfig {
  const secret = env.BOXOFFICE_WEBHOOK_SECRET;
  if (!secret) {
    throw new Error('Set BOXOFFICE_WEBHOOK_SECRET to the endpoint’s signing secret (whsec_…).');
  }
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be a port');
  return { secret, port, host: env.HOST ?? '127.0.0.1' };
}
