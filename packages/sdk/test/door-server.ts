import type {
  Attendee,
  Checkin,
  CheckinBatchItemFields,
  CheckinBatchResult,
  Ticket,
} from '../src/resources/types';
import {
  error,
  json,
  networkError,
  rateLimitHeaders,
  type RecordedRequest,
  type Reply,
} from './scripted-fetch';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The parts of the API a door uses, in memory, with the server's rules: tickets, attendees and
 * check-ins listed by cursor (with `updated_since` / `since` and a sync checkpoint), and
 * `POST /checkins/batch` applying each scan on its own, answering a repeated `idempotency_key`
 * with its first answer. Use `reply` as a scripted fetch's fallback; `down` makes every request
 * fail as a refused connection.
 */
export class DoorServer {
  readonly tickets: Ticket[] = [];
  readonly attendees: Attendee[] = [];
  readonly checkins: Checkin[] = [];
  /** Every request fails without an answer. */
  down = false;
  /** The next batch is applied, but its answer is lost on the way back. */
  loseNextAnswer = false;
  /** `X-RateLimit-*` headers of the write window to send with each batch's answer. */
  writeWindow: { limit: number; remaining: number; reset: number } | undefined;
  private readonly answers = new Map<string, CheckinBatchResult>();
  private serial = 0;

  constructor(
    private readonly now: () => number,
    readonly eventId = 'evt_door',
  ) {}

  /** Sells a ticket (and its attendee) for the door's event, or `eventId`. */
  sell(firstName = `Guest`, eventId = this.eventId): Ticket {
    const n = ++this.serial;
    const at = iso(this.now());
    const id = `tkt_${String(n).padStart(4, '0')}`;
    const ticket: Ticket = {
      id,
      order_id: `ord_${n}`,
      event_id: eventId,
      tier_id: 'tier_ga',
      attendee_id: `att_${n}`,
      code: `CODE${String(n).padStart(4, '0')}`,
      status: 'valid',
      price: 2500,
      currency: 'GBP',
      checked_in_at: null,
      voided_at: null,
      created_at: at,
      updated_at: at,
      livemode: true,
    };
    this.tickets.push(ticket);
    this.attendees.push({
      id: ticket.attendee_id,
      ticket_id: id,
      order_id: ticket.order_id,
      event_id: eventId,
      first_name: firstName,
      last_name: `Number ${n}`,
      email: null,
      company: null,
      answers: [],
      checked_in: false,
      created_at: at,
      updated_at: at,
      livemode: true,
    });
    return ticket;
  }

  ticket(id: string): Ticket {
    const ticket = this.tickets.find((t) => t.id === id);
    if (!ticket) throw new Error(`no ticket ${id}`);
    return ticket;
  }

  /** Voids a ticket, as a refund does. */
  void(id: string): void {
    const ticket = this.ticket(id);
    ticket.status = 'void';
    ticket.checked_in_at = null;
    ticket.voided_at = ticket.updated_at = iso(this.now());
  }

  /** A scan at another door, straight on the server. */
  scanElsewhere(
    id: string,
    where: { gate: string; device_id: string; direction?: 'entry' | 'exit' },
  ): CheckinBatchResult {
    return this.apply({ ticket_id: id, ...where });
  }

  readonly reply: Reply = (request) => {
    if (this.down) return networkError('connect ECONNREFUSED 127.0.0.1:3000')(request);
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const query = url.searchParams;
    if (request.method === 'GET' && path === '/tickets') {
      return this.list(this.tickets, query, 'updated_since', (t) => t.updated_at);
    }
    if (request.method === 'GET' && path === '/attendees') {
      return this.list(this.attendees, query, 'updated_since', (a) => a.updated_at);
    }
    if (request.method === 'GET' && path === '/checkins') {
      const direction = query.get('direction');
      const checkins = this.checkins.filter((c) => !direction || c.direction === direction);
      return this.list(checkins, query, 'since', (c) => c.created_at);
    }
    if (request.method === 'POST' && path === '/checkins/batch') {
      const { checkins } = request.body as { checkins: CheckinBatchItemFields[] };
      const results = checkins.map((item) => this.applyOnce(item));
      if (this.loseNextAnswer) {
        this.loseNextAnswer = false;
        return networkError('socket hang up')(request);
      }
      const w = this.writeWindow;
      const headers = w ? rateLimitHeaders(w.limit, w.remaining, w.reset) : {};
      return json(200, { data: results }, headers)(request);
    }
    return error(404, `no route ${request.method} ${path}`, { code: 'route_not_found' })(request);
  };

  /** Cursor pages over `items` of the door's event, from `sinceParam` on; cursors are offsets. */
  private list<Item extends { event_id: string }>(
    items: Item[],
    query: URLSearchParams,
    sinceParam: string,
    stamp: (item: Item) => string,
  ): Response | Promise<Response> {
    const eventId = query.get('event_id');
    const since = query.get(sinceParam);
    let matching = items.filter((item) => !eventId || item.event_id === eventId);
    if (since) {
      matching = matching
        .filter((item) => Date.parse(stamp(item)) >= Date.parse(since))
        .sort((a, b) => Date.parse(stamp(a)) - Date.parse(stamp(b)));
    }
    const limit = Number(query.get('limit') ?? 20);
    const start = Number(query.get('cursor')?.slice(2) ?? 0);
    const data = matching.slice(start, start + limit);
    const end = start + data.length;
    return json(200, {
      data,
      total: matching.length,
      page: Math.floor(start / limit) + 1,
      limit,
      next_cursor: end < matching.length ? `at${end}` : null,
      sync_checkpoint: iso(this.now() - 60_000),
    })({} as RecordedRequest);
  }

  private applyOnce(item: CheckinBatchItemFields): CheckinBatchResult {
    const key = item.idempotency_key;
    const first = key === undefined ? undefined : this.answers.get(key);
    if (first) return { ...first, replayed: true };
    const result = this.apply(item);
    if (key !== undefined) this.answers.set(key, result);
    return result;
  }

  private apply(item: CheckinBatchItemFields): CheckinBatchResult {
    const refused = (status: 404 | 409 | 422, code: string, admission?: Checkin) => ({
      status,
      data: null,
      error: code.replace(/_/g, ' '),
      code,
      ...(admission && { admission }),
      replayed: false,
    });
    const ticket = this.tickets.find((t) =>
      item.ticket_id !== undefined ? t.id === item.ticket_id : t.code === item.code,
    );
    if (!ticket) return refused(404, 'not_found');
    if (item.event_id !== undefined && item.event_id !== ticket.event_id) {
      return refused(422, 'wrong_event');
    }
    if (ticket.status === 'void') return refused(409, 'ticket_void');
    const entry = (item.direction ?? 'entry') === 'entry';
    if (entry && ticket.status === 'checked_in') {
      const admission = this.checkins.findLast(
        (c) => c.ticket_id === ticket.id && c.direction === 'entry',
      );
      return refused(409, 'already_checked_in', admission);
    }
    if (!entry && ticket.status !== 'checked_in') return refused(409, 'not_checked_in');
    const at = iso(this.now());
    const checkin: Checkin = {
      id: `chk_${this.checkins.length + 1}`,
      ticket_id: ticket.id,
      attendee_id: ticket.attendee_id,
      event_id: ticket.event_id,
      direction: entry ? 'entry' : 'exit',
      gate: item.gate ?? null,
      device_id: item.device_id ?? null,
      scanned_at: item.scanned_at ?? at,
      api_key_id: 'key_1',
      created_at: at,
      updated_at: at,
      livemode: true,
    };
    this.checkins.push(checkin);
    ticket.status = entry ? 'checked_in' : 'valid';
    ticket.checked_in_at = entry ? at : null;
    ticket.updated_at = at;
    return { status: 201, data: checkin, replayed: false };
  }
}
