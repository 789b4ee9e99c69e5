import path from 'node:path';
import { createExpressEndpoints } from '@ts-rest/express';
import { API_BASE_PATH, contract } from '@boxoffice/contract';
import { DASHBOARD_API_BASE_PATH, dashboardContract } from '@boxoffice/dashboard-contract';
import express from 'express';
import type { Logger } from 'pino';
import { ping } from './db/driver';
import type { Orm } from './db/orm';
import { createAttemptLimits, type AttemptLimits } from './http/attempt-limit';
import { apiAccess, callerOfHeader } from './http/auth';
import { jsonBody } from './http/body';
import { answerJson } from './http/json-response';
import { errorHandler, notFoundHandler, ownPathMethods } from './http/error-handler';
import { idempotencyKey } from './http/idempotency';
import { requestLogger } from './http/logger';
import { createMetrics, metricsEndpoint, type Metrics } from './http/metrics';
import { openApiEndpoint } from './http/openapi';
import type { RateLimits } from './http/rate-limit';
import { requestDeadline } from './http/deadline';
import { requestId } from './http/request-id';
import { requestRecorder } from './http/request-recorder';
import { REFERENCE_PATH, referencePage } from './http/reference-page';
import { homePage } from './http/home-page';
import { staticFiles } from './http/static-files';
import { RoutePatterns, routeLabel } from './http/routes';
import { apiSecurityHeaders, securityHeaders } from './http/security-headers';
import { dashboardSession, sessionCookies } from './http/session';
import { dashboardRouter } from './http/routers/dashboard.router';
import { publicRouter } from './http/routers/public.router';
import type { ExportQueue } from './modules/exports/export.service';
import type { RequestLogWriter } from './modules/request-logs/request-log-writer';
import type { UrlPolicy } from './modules/webhooks/url-guard';

export interface AppDeps {
  orm: Orm;
  rateLimits: RateLimits;
  logger: Logger;
  bodyLimitBytes: number;
  /** The OpenAPI document written at build (`dist/openapi.json`); generated at first use without. */
  openApiFile?: string | undefined;
  /** The built dashboard (`apps/dashboard/dist`), served at `/dashboard`; none when absent. */
  dashboardDir?: string | undefined;
  /** Session cookies get `Secure` (all but local development over plain HTTP). */
  secureCookies?: boolean;
  /** Responses carry Strict-Transport-Security (production, where the server is reached over HTTPS). */
  hsts?: boolean;
  /** Sign-ups, failed sign-ins and failed API authentications per address; in-process by default. */
  attemptLimits?: AttemptLimits;
  /** Express's `trust proxy`: which proxies' `X-Forwarded-For` gives the client address. */
  trustProxy?: number | string | undefined;
  /** This app's Prometheus metrics; by default a registry of its own. */
  metrics?: Metrics;
  /** With a token, `GET /metrics` on this app too, for `Authorization: Bearer <token>` only. */
  metricsToken?: string | undefined;
  /** API and dashboard requests still unanswered after this long get a 503; none by default. */
  requestDeadlineMs?: number;
  /** True once the server is shutting down: readiness then fails, so no new traffic comes. */
  isStopping?: () => boolean;
  /** Which webhook URLs are accepted; https to public addresses only by default. */
  webhookUrls?: UrlPolicy;
  /** Where exports are handed to be made (the export job queue); without, `POST /exports` is a 503. */
  exportQueue?: ExportQueue;
  /** Where `/api/v1` requests are recorded (the request log's writer); not recorded without. */
  requestLog?: Pick<RequestLogWriter, 'record'>;
}

/** The built single-page dashboard; paths without a file get its `index.html` (client routing). */
function dashboardPages(dir: string): express.Router {
  const pages = express.Router();
  pages.use(staticFiles(dir, { index: 'index.html', hashedDir: 'assets' }));
  pages.get('/{*path}', (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(path.join(dir, 'index.html'));
  });
  return pages;
}

/** Probes a dependency without letting a dead one hold the answer past `ms`. */
async function within<T>(ms: number, probe: Promise<T>): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function createApp(deps: AppDeps): express.Express {
  const { orm, rateLimits, logger } = deps;
  const attemptLimits = deps.attemptLimits ?? createAttemptLimits();
  const metrics = deps.metrics ?? createMetrics({ orm });
  const webhookUrls = deps.webhookUrls ?? { allowHttp: false, allowPrivate: false };
  const routes = new RoutePatterns()
    .add(contract, API_BASE_PATH)
    .add(dashboardContract, DASHBOARD_API_BASE_PATH);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.response.json = answerJson;
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);

  // Pages get the full set of security headers; the JSON API a short fixed one.
  const pageHeaders = express.Router().use(securityHeaders({ hsts: deps.hsts ?? false }));
  const apiHeaders = apiSecurityHeaders({ hsts: deps.hsts ?? false });
  app.use((req, res, next) => {
    const api = req.path === API_BASE_PATH || req.path.startsWith(`${API_BASE_PATH}/`);
    (api ? apiHeaders : pageHeaders)(req, res, next);
  });
  app.use(requestId);
  app.use(requestLogger(logger, { routes, metrics }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (deps.isStopping?.()) {
      res.set('Retry-After', '5').status(503).json({
        error: 'Service temporarily unavailable',
        code: 'service_unavailable',
        status: 'stopping',
      });
      return;
    }
    const [database, store] = await Promise.all([
      within(2000, ping(orm.em)),
      within(2000, rateLimits.ping()),
    ]);
    const checks = {
      database: database === true ? 'ok' : 'unavailable',
      rate_limit_store: store === true ? 'ok' : 'unavailable',
    };
    const ready = checks.database === 'ok' && checks.rate_limit_store === 'ok';
    if (!ready) {
      // A 503 is an error like any other: it carries the error envelope, plus the checks.
      res.set('Retry-After', '5').status(503).json({
        error: 'Service temporarily unavailable',
        code: 'service_unavailable',
        status: 'unavailable',
        checks,
      });
      return;
    }
    res.json({ status: 'ready', checks });
  });

  if (deps.metricsToken) app.get('/metrics', metricsEndpoint(metrics, deps.metricsToken));

  app.get('/', homePage({ dashboard: Boolean(deps.dashboardDir) }));
  app.get('/openapi.json', openApiEndpoint(deps.openApiFile));
  app.use(REFERENCE_PATH, routeLabel(REFERENCE_PATH), referencePage());

  const deadline = requestDeadline(deps.requestDeadlineMs);
  const api = express.Router();
  if (deps.requestLog) {
    const log = deps.requestLog;
    api.use(
      requestRecorder({
        routes,
        record: (row) => log.record(row),
        callerOf: (authorization) => callerOfHeader(orm.em, authorization),
        onUnattributed: metrics.requestLogUnattributed,
      }),
    );
  }
  api.use(deadline);
  // The API's reads are statements and its writes transactions, neither of which needs an entity
  // manager of the request's own (`getOwned` forks for its read). Without a fork per request,
  // `GET /events` @64: 0.844 vs 0.771 (3 alternating runs per arm, ranges apart; not yet 5).
  api.use((_req, res, next) => {
    res.locals.em = orm.em;
    next();
  });
  api.use(ownPathMethods);
  createExpressEndpoints(
    contract,
    publicRouter(metrics.scanned, webhookUrls, deps.exportQueue),
    api,
    {
      logInitialization: false,
      jsonQuery: false,
      responseValidation: false,
      globalMiddleware: [
        apiAccess(rateLimits, attemptLimits.apiAuthFailures, metrics.rateLimited),
        jsonBody(deps.bodyLimitBytes),
        idempotencyKey,
      ],
      requestValidationErrorHandler: (error, _req, _res, next) => next(error),
    },
  );
  // Unmatched requests end inside this router: falling out of it, an OPTIONS request for a known
  // path would get the router's automatic plain-text answer instead of the JSON 404.
  api.use(notFoundHandler);
  app.use(API_BASE_PATH, api);

  const dashboardApi = express.Router();
  dashboardApi.use(deadline);
  dashboardApi.use((_req, res, next) => {
    res.locals.em = orm.em.fork();
    next();
  });
  createExpressEndpoints(
    dashboardContract,
    dashboardRouter({
      cookies: sessionCookies(deps.secureCookies ?? false),
      attemptLimits,
      webhookUrls,
    }),
    dashboardApi,
    {
      logInitialization: false,
      jsonQuery: false,
      responseValidation: false,
      globalMiddleware: [jsonBody(deps.bodyLimitBytes), dashboardSession],
      requestValidationErrorHandler: (error, _req, _res, next) => next(error),
    },
  );
  dashboardApi.use(notFoundHandler);
  app.use(DASHBOARD_API_BASE_PATH, dashboardApi);
  if (deps.dashboardDir) {
    app.use('/dashboard', routeLabel('/dashboard/*'), dashboardPages(deps.dashboardDir));
  }

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
