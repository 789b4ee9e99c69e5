/** How much the client logs: each level includes those before it; `off` logs nothing. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Anything with these four methods: `console`, pino, winston… */
export interface Logger {
  /** A message at level `error`. */
  error(message: string, ...rest: unknown[]): void;
  /** A message at level `warn`: a setting the client could not use, such as `BOXOFFICE_LOG`. */
  warn(message: string, ...rest: unknown[]): void;
  /** A message at level `info`: a failed attempt and the retry that follows. */
  info(message: string, ...rest: unknown[]): void;
  /**
   * A message at level `debug`: each attempt (its headers go along as a second argument, the API
   * key cut short), its answer, and each call held back for the rate limit.
   */
  debug(message: string, ...rest: unknown[]): void;
}

const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

export const isLogLevel = (value: unknown): value is LogLevel =>
  typeof value === 'string' && Object.hasOwn(RANK, value);

/** A logger that drops messages below its level, and says which levels it writes. */
export interface LeveledLogger extends Logger {
  /** Whether messages at `level` are written: callers skip building the ones that are not. */
  enabled(level: Exclude<LogLevel, 'off'>): boolean;
}

/** A logger that drops messages below `level`. */
export function leveled(logger: Logger, level: LogLevel): LeveledLogger {
  const allow = (at: LogLevel) => RANK[at] <= RANK[level];
  const noop = () => {};
  return {
    enabled: allow,
    error: allow('error') ? logger.error.bind(logger) : noop,
    warn: allow('warn') ? logger.warn.bind(logger) : noop,
    info: allow('info') ? logger.info.bind(logger) : noop,
    debug: allow('debug') ? logger.debug.bind(logger) : noop,
  };
}
