import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Request, RequestHandler, Response } from 'express';
import pino, { type DestinationStream, type Logger, type SerializedError } from 'pino';
import { configSecrets, redactSecrets, type Config } from '../config';
import type { Metrics } from './metrics';
import type { RoutePatterns } from './routes';

export type LoggerConfig = Pick<Config, 'LOG_LEVEL' | 'NODE_ENV'> &
  Partial<Pick<Config, 'DATABASE_URL' | 'REDIS_URL' | 'METRICS_TOKEN'>>;

/** Wherever headers get logged, credentials do not. */
const REDACTED_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * JSON lines, except in development: one readable line per record there (coloured on a
 * terminal), also in an IDE's run panel or a redirected output. Logged errors have the configuration's
 * secrets (connection-string passwords, the metrics token) replaced, should a message quote them.
 * Without a `destination`, lines go to stdout asynchronously, in batches (`stdoutStream`): a slow
 * reader of the pipe (a log collector) never blocks the event loop. See `closeLogger`.
 */
export function createLogger(config: LoggerConfig, destination?: DestinationStream): Logger {
  const pretty = !destination && config.NODE_ENV === 'development' ? prettyStream() : undefined;
  const secrets = configSecrets(config);
  const serializeError = pino.stdSerializers.err;
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      err:
        secrets.length === 0
          ? serializeError
          : (error: Error) => redactError(serializeError(error), secrets),
    },
  };
  return pino(options, destination ?? pretty ?? stdoutStream());
}

/** Lines are written out once this many bytes are waiting, or every LOG_FLUSH_MS. */
const LOG_BATCH_BYTES = 4096;
/** The longest a line waits before it is written out, under the lightest traffic. */
const LOG_FLUSH_MS = 250;

/**
 * Standard output, written asynchronously and in batches: one write per LOG_BATCH_BYTES of lines
 * (about fifteen requests' lines) or per LOG_FLUSH_MS, whichever comes first, instead of one per
 * line. Each write is a round trip to libuv's thread pool, and a write per request cost a server
 * answering one request at a time about a tenth of its CPU. Whatever is waiting
 * is written out at exit, whatever the exit (pino flushes it synchronously), and by `closeLogger`.
 */
function stdoutStream(): DestinationStream {
  return pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
}

/**
 * pino-pretty in this thread, writing synchronously, so its lines and the start-up announcement
 * on stdout come in order. It is a development dependency: without it (a production install run
 * in development mode), JSON.
 */
function prettyStream(): DestinationStream | undefined {
  try {
    const build = createRequire(import.meta.url)('pino-pretty') as (
      options: Record<string, unknown>,
    ) => DestinationStream;
    return build({
      colorize: Boolean(process.stdout.isTTY),
      singleLine: true,
      ignore: 'pid,hostname',
      translateTime: 'SYS:HH:MM:ss',
      sync: true,
    });
  } catch {
    return undefined;
  }
}

/**
 * Writes out every pending line and closes the logger's stream (stdout itself stays open): call it
 * last before `process.exit`, whose own final flush could land after a write still in flight.
 */
export function closeLogger(logger: Logger, timeoutMs = 2000): Promise<void> {
  const stream: unknown = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!isClosable(stream)) return Promise.resolve();
  return new Promise((resolve) => {
    // A reader that stopped reading must not hold the exit up.
    const timer = setTimeout(resolve, timeoutMs);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    stream.end();
  });
}

interface Closable {
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

const isClosable = (stream: unknown): stream is Closable =>
  typeof (stream as Partial<Closable> | undefined)?.end === 'function' &&
  typeof (stream as Partial<Closable>).once === 'function';

function redactError(error: SerializedError, secrets: readonly string[]): SerializedError {
  const out: SerializedError = { ...error };
  if (typeof out.message === 'string') out.message = redactSecrets(out.message, secrets);
  if (typeof out.stack === 'string') out.stack = redactSecrets(out.stack, secrets);
  return out;
}

export interface RequestLoggerOptions {
  /** Names the route of each request (a pattern, never the raw path). */
  routes: RoutePatterns;
  /** Fed the same observation as the log line. */
  metrics?: Pick<Metrics, 'observeRequest'>;
}

/**
 * For a call of the official SDK, its version (`boxoffice-sdk/0.2.0`, the first word of its
 * User-Agent) and how many attempts came before (`X-Boxoffice-Retry-Count`): retries stand out.
 */
function sdkCall(req: Request): { sdk?: string; retry?: number } {
  const agent = req.headers['user-agent'];
  if (!agent?.startsWith('boxoffice-sdk/')) return {};
  const count = req.headers['x-boxoffice-retry-count'];
  const sdk = (agent.split(' ', 1)[0] ?? agent).slice(0, 40);
  return typeof count === 'string' && /^\d{1,3}$/.test(count)
    ? { sdk, retry: Number(count) }
    : { sdk };
}

/**
 * One line per request when its response is done: request id, method, route pattern, status,
 * duration, and who called (the key id, never the key; the dashboard user's id; the SDK's version
 * and retry count). No headers and no bodies. The listener is shared by every request (no closure per request).
 */
export function requestLogger(logger: Logger, options: RequestLoggerOptions): RequestHandler {
  const { routes, metrics } = options;

  function onClose(this: ServerResponse): void {
    const res = this as Response;
    const req = res.req as Request;
    const { locals } = res;
    const durationMs = performance.now() - locals.startedAt;
    const route = routes.of(req, res);
    // A response the client abandoned is logged as such; nginx's 499 names it in the metrics.
    const finished = res.writableFinished;
    const status = finished ? res.statusCode : 499;
    metrics?.observeRequest(req.method, route, status, durationMs / 1000);
    const line = {
      requestId: locals.requestId,
      method: req.method,
      route,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
      keyId: locals.auth?.apiKeyId,
      userId: locals.dashboard?.user.id,
      ...sdkCall(req),
    };
    if (status >= 500) logger.error(line, 'request failed');
    else logger.info(line, finished ? 'request completed' : 'request aborted');
  }

  return (_req, res, next) => {
    res.locals.startedAt = performance.now();
    res.once('close', onClose);
    next();
  };
}
