/**
 * "The limit": the two benchmarked routes on bare `node:http` and `pg`, doing the work the API
 * server does for them and nothing else (no framework, router, validation library, ORM, logging,
 * rate limiting or metrics). Same queries in the same order, prepared as the API prepares them,
 * same pool size, same JSON.
 *
 *   GET  /api/v1/events?limit=&page=   key lookup, then the page and the count in parallel
 *   POST /api/v1/checkins              key lookup, then one transaction: lock the ticket, check
 *                                      its state, then one statement updating the ticket and the
 *                                      attendee and inserting the check-in, then the three change
 *                                      records
 */
import {
  createHash,
  createHmac,
  createSecretKey,
  hash,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { loadBareServerConfig } from './config.ts';

const config = loadBareServerConfig();
const pool = new pg.Pool({
  connectionString: config.databaseUrl,
  max: config.poolMax,
  idleTimeoutMillis: 30_000,
});

/**
 * As the API runs its statements: prepared, one name per statement text (PostgreSQL parses and
 * plans a named statement once per connection).
 */
const names = new Map<string, string>();
const prepared = (text: string, values: unknown[]) => {
  let name = names.get(text);
  if (name === undefined) {
    name = `bare_${names.size + 1}`;
    names.set(text, name);
  }
  return { name, text, values };
};

// ---------------------------------------------------------------------------------------------
// Answers

type Body = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: Body, headers: Body = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Body;

  constructor(status: number, code: string, message: string, headers: Body = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

// ---------------------------------------------------------------------------------------------
// Authentication: the API's query, checks and order (401 → 402 → 403).

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const KEY_PATTERN = /^bxo_(?:live|test)_[0-9A-Za-z]{32,128}$/;

interface KeyRow {
  id: string;
  organisation_id: string;
  key_hash: string;
  scopes: string[];
  plan: string;
  livemode: boolean;
  revoked: boolean;
  stale: boolean;
}

interface Auth {
  apiKeyId: string;
  organisationId: string;
  livemode: boolean;
}

const invalidKey = () =>
  new Refusal(401, 'invalid_api_key', 'Invalid or missing API key', {
    'WWW-Authenticate': 'Bearer realm="boxoffice"',
  });

async function authenticate(req: IncomingMessage, scope: string): Promise<Auth> {
  const raw = BEARER.exec(req.headers.authorization ?? '')?.[1];
  if (!raw || !KEY_PATTERN.test(raw)) throw invalidKey();
  const keyHash = hash('sha256', raw, 'hex');
  const { rows } = await pool.query<KeyRow>(
    prepared(
      `select k.id, k.organisation_id, k.key_hash, k.scopes, coalesce(live.plan, o.plan) as plan,
            o.live_organisation_id is null as livemode, k.revoked_at is not null as revoked,
            (k.last_used_at is null or k.last_used_at < now() - interval '60 seconds') as stale
       from api_keys k join organisations o on o.id = k.organisation_id
       left join organisations live on live.id = o.live_organisation_id
      where k.key_hash = $1`,
      [keyHash],
    ),
  );
  const row = rows[0];
  if (!row || row.revoked) throw invalidKey();
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(keyHash, 'hex'))) {
    throw invalidKey();
  }
  if (row.stale) {
    pool
      .query(
        prepared(
          `update api_keys set last_used_at = now()
            where id = $1
              and (last_used_at is null or last_used_at < now() - interval '60 seconds')`,
          [row.id],
        ),
      )
      .catch(() => undefined);
  }
  if (row.plan !== 'pro') {
    throw new Refusal(
      402,
      'plan_required',
      'API access requires the Pro plan. Upgrade in the dashboard under Settings → Plan.',
    );
  }
  if (!row.scopes.includes(scope)) {
    throw new Refusal(403, 'missing_scope', `This API key lacks the '${scope}' scope`);
  }
  return { apiKeyId: row.id, organisationId: row.organisation_id, livemode: row.livemode };
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/events

const iso = (date: Date): string => date.toISOString();
const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

interface EventRow {
  id: string;
  name: string;
  description: string | null;
  venue: string | null;
  timezone: string;
  starts_at: Date;
  ends_at: Date;
  doors_open_at: Date | null;
  currency: string;
  capacity: number | null;
  status: string;
  published_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toEvent = (row: EventRow, livemode: boolean) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  venue: row.venue,
  timezone: row.timezone,
  starts_at: iso(row.starts_at),
  ends_at: iso(row.ends_at),
  doors_open_at: isoOrNull(row.doors_open_at),
  currency: row.currency,
  capacity: row.capacity,
  status: row.status,
  published_at: isoOrNull(row.published_at),
  cancelled_at: isoOrNull(row.cancelled_at),
  livemode,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

function integerParam(query: URLSearchParams, name: string, max: number, fallback: number) {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= max)) {
    throw new Refusal(400, 'invalid_request', `${name} must be an integer between 1 and ${max}`);
  }
  return value;
}

/** The key that signs list cursors, as the API reads it (`server_secrets`), once. */
let cursorSecret: Promise<KeyObject> | undefined;
const secret = () =>
  (cursorSecret ??= pool
    .query<{ value: string }>(`select value from server_secrets where name = 'list_cursor'`)
    .then(({ rows: [row] }) => {
      if (!row) throw new Error('server_secrets has no list_cursor key: start the API once');
      return createSecretKey(Buffer.from(row.value, 'utf8'));
    }));

/** The digest of no filters, as the API binds a cursor to its filters. */
const NO_FILTERS = createHash('sha256').update('[]').digest('base64url').slice(0, 16);

/** The API's `next_cursor`: the walk's state after `after`, signed for this list and organisation. */
async function nextCursor(
  organisationId: string,
  after: unknown[],
  page: number,
  total: number,
  startedAt: number,
) {
  const payload = Buffer.from(
    JSON.stringify({ v: 1, a: after, p: page, t: total, s: startedAt, f: NO_FILTERS }),
  ).toString('base64url');
  const signature = createHmac('sha256', await secret())
    .update(`events\n${organisationId}\n${payload}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
  return `${payload}.${signature}`;
}

async function listEvents(req: IncomingMessage, res: ServerResponse, search: string) {
  const auth = await authenticate(req, 'read');
  const startedAt = Date.now();
  const query = new URLSearchParams(search);
  const limit = integerParam(query, 'limit', 100, 20);
  const page = integerParam(query, 'page', Number.MAX_SAFE_INTEGER, 1);
  const [found, count] = await Promise.all([
    pool.query<EventRow & { sort_key: unknown[] }>(
      prepared(
        `select *, json_build_array(created_at, id) as sort_key from events
          where organisation_id = $1
          order by created_at asc, id asc limit $2 offset $3`,
        [auth.organisationId, limit + 1, (page - 1) * limit],
      ),
    ),
    pool.query<{ count: string }>(
      prepared('select count(*) as count from events where organisation_id = $1', [
        auth.organisationId,
      ]),
    ),
  ]);
  const total = Number(count.rows[0]?.count ?? 0);
  const rows = found.rows.slice(0, limit);
  // A row past the page means another page: its cursor continues after this page's last row.
  const last = found.rows.length > limit ? rows.at(-1) : undefined;
  send(res, 200, {
    data: rows.map((row) => toEvent(row, auth.livemode)),
    total,
    page,
    limit,
    next_cursor: last
      ? await nextCursor(auth.organisationId, last.sort_key, page + 1, total, startedAt)
      : null,
    sync_checkpoint: new Date(startedAt - 60_000).toISOString(),
  });
}

// ---------------------------------------------------------------------------------------------
// POST /api/v1/checkins

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `chk_` + 8 base62 characters of millisecond time + 16 random ones, as the API's ids. */
function newCheckinId(at: Date): string {
  let time = '';
  for (let rest = at.getTime(); rest > 0; rest = Math.floor(rest / 62)) {
    time = BASE62.charAt(rest % 62) + time;
  }
  let random = '';
  while (random.length < 16) {
    for (const byte of randomBytes(24)) {
      // 248 = 4 × 62: bytes above it are skipped, so every character is equally likely.
      if (byte < 248 && random.length < 16) random += BASE62.charAt(byte % 62);
    }
  }
  return `chk_${time.padStart(8, '0')}${random}`;
}

interface CheckinInput {
  ticket_id?: string;
  code?: string;
  event_id?: string;
  direction: 'entry' | 'exit';
  gate: string | null;
  device_id: string | null;
  scanned_at: string | null;
}

const optionalText = (body: Body, name: string): string | undefined => {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) {
    throw new Refusal(400, 'invalid_request', `${name} must be a non-empty string`);
  }
  return value;
};

function parseCheckin(text: string): CheckinInput {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Refusal(400, 'invalid_json', 'Request body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new Refusal(400, 'invalid_request', 'Request body must be a JSON object');
  }
  const fields = body as Body;
  const ticketId = optionalText(fields, 'ticket_id');
  const code = optionalText(fields, 'code');
  if ((ticketId === undefined) === (code === undefined)) {
    throw new Refusal(400, 'invalid_request', 'exactly one of ticket_id or code is required');
  }
  const direction = fields.direction ?? 'entry';
  if (direction !== 'entry' && direction !== 'exit') {
    throw new Refusal(400, 'invalid_request', 'direction must be entry or exit');
  }
  return {
    ticket_id: ticketId,
    code,
    event_id: optionalText(fields, 'event_id'),
    direction,
    gate: optionalText(fields, 'gate') ?? null,
    device_id: optionalText(fields, 'device_id') ?? null,
    scanned_at: optionalText(fields, 'scanned_at') ?? null,
  };
}

function readBody(req: IncomingMessage, limit = 100 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new Refusal(413, 'payload_too_large', 'Request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

interface TicketRow {
  id: string;
  order_id: string;
  tier_id: string;
  code: string;
  price: number;
  currency: string;
  voided_at: Date | null;
  created_at: Date;
  event_id: string;
  attendee_id: string;
  status: string;
  checked_in_at: Date | null;
}

interface AttendeeRow {
  id: string;
  ticket_id: string;
  order_id: string;
  event_id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  company: string | null;
  answers: unknown;
  checked_in: boolean;
  created_at: Date;
  updated_at: Date;
}

async function createCheckin(req: IncomingMessage, res: ServerResponse) {
  const auth = await authenticate(req, 'checkins:write');
  const input = parseCheckin(await readBody(req));
  const client = await pool.connect();
  let checkin;
  try {
    await client.query('begin');
    const byId = input.ticket_id !== undefined;
    const ticket = (
      await client.query<TicketRow>(
        prepared(
          `select * from tickets where ${byId ? 'id' : 'code'} = $1 and organisation_id = $2
          limit 1 for update`,
          [byId ? input.ticket_id : input.code, auth.organisationId],
        ),
      )
    ).rows[0];
    if (!ticket) throw new Refusal(404, 'not_found', 'ticket not found');
    if (input.event_id !== undefined && input.event_id !== ticket.event_id) {
      throw new Refusal(422, 'wrong_event', 'ticket is for a different event');
    }
    if (ticket.status === 'void') throw new Refusal(409, 'ticket_void', 'ticket is void');
    const entry = input.direction === 'entry';
    if (entry && ticket.status === 'checked_in') {
      throw new Refusal(
        409,
        'already_checked_in',
        `ticket already checked in at ${ticket.checked_in_at?.toISOString() ?? 'an earlier scan'}`,
      );
    }
    if (!entry && ticket.status !== 'checked_in') {
      throw new Refusal(409, 'not_checked_in', 'ticket is not checked in, so it cannot exit');
    }
    const now = new Date();
    const status = entry ? 'checked_in' : 'valid';
    checkin = {
      id: newCheckinId(now),
      ticket_id: ticket.id,
      attendee_id: ticket.attendee_id,
      event_id: ticket.event_id,
      direction: input.direction,
      gate: input.gate,
      device_id: input.device_id,
      scanned_at: input.scanned_at ? iso(new Date(input.scanned_at)) : iso(now),
      api_key_id: auth.apiKeyId,
      livemode: auth.livemode,
      created_at: iso(now),
      updated_at: iso(now),
    };
    // As the API: the ticket's update, the check-in's insert and the attendee's update (returning
    // the attendee when it changed) in one statement.
    const attendee = (
      await client.query<AttendeeRow>(
        prepared(
          `with admitted as (
           update tickets set status = $1, checked_in_at = $2, updated_at = $3 where id = $4
         ),
         recorded as (
           insert into checkins (id, organisation_id, event_id, ticket_id, attendee_id, api_key_id,
                                 direction, gate, device_id, scanned_at, created_at, updated_at)
           values ($5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         )
         update attendees set checked_in = $17, updated_at = $3
          where id = $9 and organisation_id = $6 and checked_in <> $17
          returning *`,
          [
            status,
            entry ? now : null,
            now,
            ticket.id,
            checkin.id,
            auth.organisationId,
            checkin.event_id,
            checkin.ticket_id,
            checkin.attendee_id,
            checkin.api_key_id,
            checkin.direction,
            checkin.gate,
            checkin.device_id,
            checkin.scanned_at,
            checkin.created_at,
            checkin.updated_at,
            entry,
          ],
        ),
      )
    ).rows[0];
    // The change records, as the API writes them: the ticket, the attendee (if it changed) and the
    // check-in, each as it is rendered, in one statement.
    const changes: [string, string, unknown][] = [
      [
        'ticket.updated',
        ticket.id,
        {
          id: ticket.id,
          order_id: ticket.order_id,
          event_id: ticket.event_id,
          tier_id: ticket.tier_id,
          attendee_id: ticket.attendee_id,
          code: ticket.code,
          status,
          price: ticket.price,
          currency: ticket.currency,
          checked_in_at: entry ? iso(now) : null,
          voided_at: isoOrNull(ticket.voided_at),
          livemode: auth.livemode,
          created_at: iso(ticket.created_at),
          updated_at: iso(now),
        },
      ],
    ];
    if (attendee) {
      changes.push([
        'attendee.updated',
        attendee.id,
        {
          id: attendee.id,
          ticket_id: attendee.ticket_id,
          order_id: attendee.order_id,
          event_id: attendee.event_id,
          first_name: attendee.first_name,
          last_name: attendee.last_name,
          email: attendee.email,
          company: attendee.company,
          answers: attendee.answers,
          checked_in: attendee.checked_in,
          livemode: auth.livemode,
          created_at: iso(attendee.created_at),
          updated_at: iso(attendee.updated_at),
        },
      ]);
    }
    changes.push(['checkin.created', checkin.id, checkin]);
    await client.query(
      prepared(
        `insert into change_records (organisation_id, type, object_id, data)
       values ${changes.map((_, i) => `($1, $${3 * i + 2}, $${3 * i + 3}, $${3 * i + 4}::jsonb)`).join(', ')}`,
        [
          auth.organisationId,
          ...changes.flatMap(([type, id, data]) => [type, id, JSON.stringify(data)]),
        ],
      ),
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  send(res, 201, { data: checkin });
}

// ---------------------------------------------------------------------------------------------
// Routing

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const search = mark === -1 ? '' : url.slice(mark + 1);
  if (path === '/api/v1/events' && req.method === 'GET') return listEvents(req, res, search);
  if (path === '/api/v1/checkins' && req.method === 'POST') return createCheckin(req, res);
  if (path === '/healthz' && req.method === 'GET') return send(res, 200, { status: 'ok' });
  send(res, 404, { error: 'Not found', code: 'not_found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (res.headersSent) return res.destroy();
    if (error instanceof Refusal) {
      send(res, error.status, { error: error.message, code: error.code }, error.headers);
    } else {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      send(res, 500, { error: 'Internal server error', code: 'internal_error' });
    }
  });
});

server.listen(config.port, config.host);

const shutdown = () => {
  server.close(() => {
    void pool.end().finally(() => process.exit(0));
  });
  server.closeIdleConnections();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
