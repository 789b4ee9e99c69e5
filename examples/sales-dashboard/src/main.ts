import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIError, Boxoffice, NotFoundError } from '@boxoffice/sdk';
import { isSetupRefusal, runCommand } from '@boxoffice/example-shared';
import { isEventId, parseDashboardArgs, USAGE, type DashboardOptions } from './args';
import {
  loadEventDashboard,
  loadPicker,
  ViewCache,
  type EventDashboard,
  type EventPicker,
} from './data';
import { REFRESH_SECONDS, renderError, renderEvent, renderPicker } from './render';

const note = (line: string) => process.stderr.write(`${line}\n`);

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The pages have no scripts, images or forms: allow nothing but their inline stylesheet.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = HTML_HEADERS,
): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Reads left in the key's current window, as the SDK last saw them. */
function readsLeft(client: Boxoffice): number | undefined {
  const { remaining, resetAt } = client.rateLimit('read');
  return resetAt !== undefined && resetAt > Date.now() ? remaining : undefined;
}

function createHandler(client: Boxoffice, options: DashboardOptions) {
  const ttl = REFRESH_SECONDS * 1000;
  const dashboards = new ViewCache<EventDashboard>(ttl);
  const pickers = new ViewCache<EventPicker>(ttl);

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(req, res, 405, '', { allow: 'GET, HEAD' });
      return;
    }
    const { pathname } = new URL(req.url ?? '/', 'http://dashboard.invalid');
    if (pathname === '/healthz') {
      send(req, res, 200, JSON.stringify({ status: 'ok' }), {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
      });
      return;
    }

    let eventId: string | undefined;
    if (pathname === '/') {
      eventId = options.eventId;
    } else {
      const id = /^\/events\/([^/]+)$/.exec(pathname)?.[1];
      // With --event, this server shows that event and nothing else of the organisation.
      if (!id || !isEventId(id) || (options.eventId !== undefined && id !== options.eventId)) {
        send(req, res, 404, renderError('Not found', `There is no page at ${pathname}.`));
        return;
      }
      eventId = id;
    }

    try {
      if (eventId) {
        const id = eventId;
        const view = await dashboards.get(id, () => loadEventDashboard(client, id));
        const linkToPicker = options.eventId === undefined;
        send(req, res, 200, renderEvent(view, readsLeft(client), { linkToPicker }));
      } else {
        const view = await pickers.get('published', () => loadPicker(client));
        send(req, res, 200, renderPicker(view, readsLeft(client)));
      }
    } catch (error) {
      if (error instanceof NotFoundError) {
        const message = `This API key's organisation has no event ${eventId ?? ''}.`;
        send(req, res, 404, renderError('Event not found', message));
      } else if (error instanceof APIError) {
        note(`API error for ${pathname}: ${error.message} (request ${error.requestId ?? '—'})`);
        const title = 'The Boxoffice API could not answer';
        const page = renderError(title, error.message, {
          retry: true,
          requestId: error.requestId,
        });
        send(req, res, 502, page);
      } else {
        console.error(error);
        send(req, res, 500, renderError('Something went wrong', 'See the server log.'));
      }
    }
  };
}

/** One read at start, so a wrong key, plan or event stops the server instead of every page. */
async function checkAccess(client: Boxoffice, options: DashboardOptions): Promise<void> {
  try {
    if (options.eventId) await client.events.get(options.eventId);
    else await client.events.list({ limit: 1 });
  } catch (error) {
    if (isSetupRefusal(error) || !(error instanceof APIError)) throw error;
    note(`warning: the API did not answer (${error.message}); pages will retry`);
  }
}

async function main(options: DashboardOptions): Promise<number> {
  // The key and the server come from BOXOFFICE_API_KEY and BOXOFFICE_BASE_URL, which the SDK reads.
  const client = new Boxoffice();
  await checkAccess(client, options);

  const handle = createHandler(client, options);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  const what = options.eventId ? `event ${options.eventId}` : 'published events';
  process.stdout.write(`Sales dashboard for ${what}: http://${host}:${port}/\n`);

  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}

runCommand({ usage: USAGE, parse: parseDashboardArgs, run: main });
