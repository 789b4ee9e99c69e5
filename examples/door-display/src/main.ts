import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhooks, WebhookVerificationError } from '@boxoffice/sdk';
import { loadConfig, type DisplayConfig } from './config';
import { Occupancy } from './occupancy';

/**
 * A door display: a small web server that receives Boxoffice webhooks at `POST /webhooks`,
 * verifies each one with the endpoint's signing secret, and keeps the number of people inside
 * each event up to date from `checkin.created` events. `GET /` shows it; `GET /status` as JSON.
 *
 *   BOXOFFICE_WEBHOOK_SECRET=whsec_… PORT=4000 pnpm start
 */

let config: DisplayConfig;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
const { secret, port, host } = config;

const webhooks = new Webhooks();
const occupancy = new Occupancy();

/** The body exactly as sent: the signature covers these bytes. */
async function rawBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1_000_000) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type }).end(body);
}

async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let event;
  try {
    event = await webhooks.unwrap(await rawBody(req), req.headers, secret);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    process.stdout.write(`refused a delivery: ${error.message}\n`);
    return send(res, 400, 'text/plain', 'invalid signature\n');
  }
  // Answer quickly; anything slow would go after the answer.
  if (event.type === 'checkin.created') {
    const checkin = event.data.object;
    if (occupancy.apply(checkin)) {
      const where = checkin.gate ? ` at ${checkin.gate}` : '';
      process.stdout.write(
        `${checkin.direction}${where}: ${occupancy.inside(checkin.event_id)} inside ${checkin.event_id}\n`,
      );
    }
  } else if (event.type === 'webhook.test') {
    process.stdout.write('test event received: the endpoint works\n');
  }
  send(res, 204, 'text/plain', '');
}

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(): string {
  const { events } = occupancy.snapshot();
  const rows = Object.entries(events)
    .map(
      ([eventId, inside]) =>
        `<li><strong>${inside}</strong> inside <code>${escape(eventId)}</code></li>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2"><title>Door display</title></head><body><h1>Inside now</h1><ul>${rows || '<li>Nobody yet</li>'}</ul></body></html>`;
}

const server = createServer((req, res) => {
  const route = `${req.method} ${req.url?.split('?')[0]}`;
  if (route === 'POST /webhooks') {
    receive(req, res).catch((error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      send(res, 500, 'text/plain', 'error\n');
    });
  } else if (route === 'GET /status') {
    send(res, 200, 'application/json', JSON.stringify(occupancy.snapshot()));
  } else if (route === 'GET /') {
    send(res, 200, 'text/html; charset=utf-8', page());
  } else {
    send(res, 404, 'text/plain', 'not found\n');
  }
});

server.listen(port, host, () => {
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(`door display on http://${host}:${bound} (webhooks at /webhooks)\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
