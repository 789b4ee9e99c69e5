import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The benchmark's data, written with set-based SQL: `organisations` Pro organisations of
 * `eventsPerOrganisation` events each, one more organisation holding the events the SDK iterates
 * over, one API key per organisation, and valid tickets (with their orders, tier and attendees)
 * handed out one per check-in request; for the export case, a large number of tickets more of the
 * iterating organisation. Ids are derived from numbers, so the harness knows every ticket's code
 * without reading it back.
 */
export interface SeedPlan {
  organisations: number;
  eventsPerOrganisation: number;
  iterateItems: number;
}

export interface SeededKey {
  organisationId: string;
  key: string;
}

export interface Seeded {
  /** One key per organisation, indexed like the organisations. */
  keys: SeededKey[];
  /** The key of the organisation with `iterateItems` events. */
  iterateKey: SeededKey;
  /** Tickets issued so far (numbers 0 … ticketCount − 1). */
  ticketCount: number;
}

// Ids in the API's shape (`<prefix>_` + 24 base62 characters) from stable numbers.
const id = (prefix: string, ...parts: string[]) =>
  `'${prefix}_' || substr(md5('${prefix}-' || ${parts.join(` || '-' || `)}), 1, 24)`;
const orgId = (o: string) => id('org', `${o}::text`);
const eventId = (o: string, e: string) => id('evt', `${o}::text`, `${e}::text`);
const tierId = (o: string) => id('tier', `${o}::text`);

const CURRENCY = `(array['GBP','EUR','USD','EUR','JPY'])[1 + o % 5]`;
const TIMEZONE = `(array['Europe/London','Europe/Berlin','America/New_York','Europe/Paris','Asia/Tokyo'])[1 + o % 5]`;
const FIRST_NAMES = `array['Amelia','Noah','Priya','Lukas','Sofia','Kenji','Chloe','Mateo','Zara','Oskar']`;
const LAST_NAMES = `array['Khan','Schmidt','Okafor','Rossi','Nguyen','Dubois','Silva','Novak','Kowalski','Ahmed']`;

/** The code of ticket `n`: 24 base62 characters, like the server's barcodes. */
export const ticketCode = (n: number): string => `B${String(n).padStart(23, '0')}`;

/** The id of the event organisation `o`'s tickets are for (as `eventId('o', '0')` makes it). */
export const ticketEventId = (o: number): string =>
  `evt_${createHash('md5').update(`evt-${o}-0`).digest('hex').slice(0, 24)}`;

/** The organisation (and so the key) ticket `n` belongs to. */
export const ticketOrganisation = (n: number, organisations: number): number => n % organisations;

/**
 * Events `0 … count − 1` of organisations `$1 … $2 − 1`, created `$4` apart (the list order);
 * varied statuses, times, venues and capacities.
 */
const EVENTS_SQL = `
  insert into events (id, organisation_id, name, description, venue, timezone, starts_at, ends_at,
                      doors_open_at, currency, capacity, status, published_at, cancelled_at,
                      created_at, updated_at)
  select ${eventId('o', 'e')}, ${orgId('o')},
         (array['Riverside','Harbour','Northern','Old Town','Skyline','Lakeside','Union','Canal','Market','Garden'])[1 + e % 10]
           || ' ' ||
         (array['Jazz Night','Developer Summit','Food Festival','Comedy Club','Book Fair','Film Week','Data Days','Design Forum','Folk Sessions','Startup Expo'])[1 + (e / 10) % 10]
           || ' ' || (2026 + e / 100),
         case when e % 7 = 0 then null
              else 'Talks, music and food across two halls, with a late programme after the main stage closes.' end,
         case when e % 11 = 0 then null
              else (array['Riverside Hall, 12 Wharf Road','Halle am Kanal, Köpenicker Straße 40','Pier 17 Pavilion, Fulton Street','Le Hangar, 8 quai de la Loire','Hall 3, Minato Mirai'])[1 + o % 5] end,
         ${TIMEZONE},
         starts, starts + interval '4 hours',
         case when e % 4 = 0 then null else starts - interval '45 minutes' end,
         ${CURRENCY},
         case when e % 9 = 0 then null else 100 + (e * 37 + o * 11) % 4900 end,
         status,
         case when status = 'draft' then null else created + interval '1 day' end,
         case when status = 'cancelled' then created + interval '10 days' end,
         created,
         created + case when status = 'draft' then interval '0' else interval '10 days' end
    from generate_series($1::int, $2::int - 1) o,
         generate_series(0, $3::int - 1) e,
         lateral (select now() - interval '400 days' + e * $4::interval + o * interval '1 second' as created,
                         date_trunc('day', now()) + (e % 200 - 60) * interval '3 days'
                           + (e % 5) * interval '2 hours' + interval '17 hours' as starts,
                         case e % 10 when 6 then 'draft' when 7 then 'draft'
                                     when 8 then 'completed' when 9 then 'cancelled'
                                     else 'published' end as status) t`;

/** Tickets `$1 … $2 − 1` (ticket n belongs to organisation n % $3), their orders and attendees. */
const ORDERS_SQL = `
  insert into orders (id, organisation_id, event_id, reference, buyer_name, buyer_email, status,
                      subtotal, fees, total, refunded_amount, currency, ticket_count, placed_at,
                      paid_at, created_at, updated_at)
  select ${id('ord', 'o::text', 'j::text')}, ${orgId('o')}, ${eventId('o', '0')},
         'BX-' || lpad(j::text, 7, '0'),
         (${FIRST_NAMES})[1 + j % 10] || ' ' || (${LAST_NAMES})[1 + (j / 10) % 10],
         'buyer' || j || '@example.com', 'completed', 25000, 1500, 26500, 0, ${CURRENCY}, 10,
         now() - interval '10 days', now() - interval '10 days',
         now() - interval '10 days', now() - interval '10 days'
    from generate_series($1::int, $2::int - 1) n,
         lateral (select n % $3::int as o, (n / $3::int) / 10 as j) t
   where (n / $3::int) % 10 = 0
  on conflict (id) do nothing`;

const TICKETS_SQL = `
  insert into tickets (id, organisation_id, order_id, event_id, tier_id, attendee_id, code, status,
                       price, currency, checked_in_at, voided_at, created_at, updated_at)
  select ${id('tkt', 'n::text')}, ${orgId('o')}, ${id('ord', 'o::text', 'j::text')},
         ${eventId('o', '0')}, ${tierId('o')}, ${id('att', 'n::text')},
         'B' || lpad(n::text, 23, '0'), 'valid', 2500, ${CURRENCY}, null, null,
         now() - interval '10 days', now() - interval '10 days'
    from generate_series($1::int, $2::int - 1) n,
         lateral (select n % $3::int as o, (n / $3::int) / 10 as j) t`;

const ATTENDEES_SQL = `
  insert into attendees (id, organisation_id, ticket_id, order_id, event_id, first_name, last_name,
                         email, company, answers, checked_in, created_at, updated_at)
  select ${id('att', 'n::text')}, ${orgId('o')}, ${id('tkt', 'n::text')},
         ${id('ord', 'o::text', 'j::text')}, ${eventId('o', '0')},
         (${FIRST_NAMES})[1 + n % 10], (${LAST_NAMES})[1 + (n / 10) % 10],
         'guest' || n || '@example.com', null,
         '[{"question":"Dietary requirements","answer":"None"}]'::jsonb, false,
         now() - interval '10 days', now() - interval '10 days'
    from generate_series($1::int, $2::int - 1) n,
         lateral (select n % $3::int as o, (n / $3::int) / 10 as j) t`;

/**
 * The export case's data, all of the organisation `$1` (the one whose events the SDK iterates):
 * a tier on its first event, and tickets `0 … $2 − 1` with their orders (of 10) and attendees.
 * Their ids, codes (`E…`) and references (`BE-…`) are apart from the check-in tickets' by
 * construction, and their creation times one millisecond apart.
 */
const EXPORT_TIER_SQL = `
  insert into ticket_tiers (id, organisation_id, event_id, name, description, price, currency,
                            quantity_total, quantity_sold, max_per_order, sales_start_at,
                            sales_end_at, sort_order, status, created_at, updated_at)
  select ${tierId('o')}, ${orgId('o')}, ${eventId('o', '0')}, 'Standing', null, 3500, ${CURRENCY},
         null, $2::int, 10, null, null, 0, 'on_sale', now() - interval '30 days',
         now() - interval '30 days'
    from (select $1::int as o) t`;

const EXPORT_ORDERS_SQL = `
  insert into orders (id, organisation_id, event_id, reference, buyer_name, buyer_email, status,
                      subtotal, fees, total, refunded_amount, currency, ticket_count, placed_at,
                      paid_at, created_at, updated_at)
  select ${id('ord', `'export'`, 'j::text')}, ${orgId('o')}, ${eventId('o', '0')},
         'BE-' || lpad(j::text, 7, '0'),
         (${FIRST_NAMES})[1 + j % 10] || ' ' || (${LAST_NAMES})[1 + (j / 10) % 10],
         'export-buyer' || j || '@example.com', 'completed', 35000, 2100, 37100, 0, ${CURRENCY},
         least(10, $2::int - j * 10), created, created, created, created
    from generate_series(0, ($2::int - 1) / 10) j,
         lateral (select $1::int as o,
                         now() - interval '20 days' + j * 10 * interval '1 millisecond' as created) t`;

const EXPORT_TICKETS_SQL = `
  insert into tickets (id, organisation_id, order_id, event_id, tier_id, attendee_id, code, status,
                       price, currency, checked_in_at, voided_at, created_at, updated_at)
  select ${id('tkt', `'export'`, 'n::text')}, ${orgId('o')}, ${id('ord', `'export'`, '(n / 10)::text')},
         ${eventId('o', '0')}, ${tierId('o')}, ${id('att', `'export'`, 'n::text')},
         'E' || lpad(n::text, 23, '0'), 'valid', 3500, ${CURRENCY}, null, null, created, created
    from generate_series(0, $2::int - 1) n,
         lateral (select $1::int as o,
                         now() - interval '20 days' + n * interval '1 millisecond' as created) t`;

const EXPORT_ATTENDEES_SQL = `
  insert into attendees (id, organisation_id, ticket_id, order_id, event_id, first_name, last_name,
                         email, company, answers, checked_in, created_at, updated_at)
  select ${id('att', `'export'`, 'n::text')}, ${orgId('o')}, ${id('tkt', `'export'`, 'n::text')},
         ${id('ord', `'export'`, '(n / 10)::text')}, ${eventId('o', '0')},
         (${FIRST_NAMES})[1 + n % 10], (${LAST_NAMES})[1 + (n / 10) % 10],
         'export-guest' || n || '@example.com', null,
         '[{"question":"Dietary requirements","answer":"None"}]'::jsonb, false, created, created
    from generate_series(0, $2::int - 1) n,
         lateral (select $1::int as o,
                         now() - interval '20 days' + n * interval '1 millisecond' as created) t`;

/** The id of the export case's order `j` (tickets 10j … 10j + 9), as `EXPORT_ORDERS_SQL` makes it. */
export const exportOrderId = (j: number): string =>
  `ord_${createHash('md5').update(`ord-export-${j}`).digest('hex').slice(0, 24)}`;

/** The server's hash of a raw key: SHA-256, hex. */
const hashKey = (raw: string): string => createHash('sha256').update(raw).digest('hex');

export class Seeder {
  readonly #url: string;
  readonly #plan: SeedPlan;
  #ticketCount = 0;

  constructor(url: string, plan: SeedPlan) {
    this.#url = url;
    this.#plan = plan;
  }

  get ticketCount(): number {
    return this.#ticketCount;
  }

  /** `work` in one transaction, then `vacuum analyze` of `tables` (all of them by default). */
  async #transaction(
    work: (client: pg.Client) => Promise<void>,
    tables: readonly string[] = [],
  ): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    await client.connect();
    try {
      await client.query('begin');
      await work(client);
      await client.query('commit');
      // As autovacuum leaves a table after a bulk load: statistics, and a visibility map so that
      // counts and deep offsets read the indexes alone.
      await client.query(`vacuum analyze ${tables.join(', ')}`);
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      await client.end();
    }
  }

  /** Organisations, keys, events, the check-in tier, and `tickets` tickets. */
  async seed(tickets: number): Promise<Seeded> {
    const { organisations, eventsPerOrganisation, iterateItems } = this.#plan;
    const keys: SeededKey[] = [];
    await this.#transaction(async (client) => {
      // Organisation `organisations` (one past the others) holds the events the SDK iterates.
      await client.query(
        `insert into organisations (id, name, plan, plan_changed_at, created_at, updated_at)
         select ${orgId('o')},
                case when o = $1::int then 'Bench Catalogue' else 'Bench Organisation ' || o end,
                'pro', now() - interval '200 days', now() - interval '400 days', now() - interval '200 days'
           from generate_series(0, $1::int) o`,
        [organisations],
      );
      const orgIds = await client.query<{ id: string; n: number }>(
        `select ${orgId('o')} as id, o as n from generate_series(0, $1::int) o order by o`,
        [organisations],
      );
      const rows = orgIds.rows.map((row) => {
        const key = `bxo_live_${randomBytes(20).toString('hex')}`;
        keys.push({ organisationId: row.id, key });
        return { id: `key_${hashKey(`key-${row.n}`).slice(0, 24)}`, org: row.id, key };
      });
      await client.query(
        `insert into api_keys (id, organisation_id, name, hint, key_hash, scopes, created_at, updated_at)
         select id, org, 'Benchmark', 'bxo_live_…' || right(key, 4), hash,
                '{read,write,checkins:write}'::text[], now() - interval '100 days', now() - interval '100 days'
           from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as k(id, org, key, hash)`,
        [
          rows.map((row) => row.id),
          rows.map((row) => row.org),
          rows.map((row) => row.key),
          rows.map((row) => hashKey(row.key)),
        ],
      );
      await client.query(EVENTS_SQL, [0, organisations, eventsPerOrganisation, '2 days']);
      await client.query(EVENTS_SQL, [organisations, organisations + 1, iterateItems, '1 minute']);
      await client.query(
        `insert into ticket_tiers (id, organisation_id, event_id, name, description, price, currency,
                                   quantity_total, quantity_sold, max_per_order, sales_start_at,
                                   sales_end_at, sort_order, status, created_at, updated_at)
         select ${tierId('o')}, ${orgId('o')}, ${eventId('o', '0')}, 'General admission', null, 2500,
                ${CURRENCY}, null, 0, 10, null, null, 0, 'on_sale', now() - interval '30 days',
                now() - interval '30 days'
           from generate_series(0, $1::int - 1) o`,
        [organisations],
      );
      await this.#issue(client, tickets);
    });
    // The last organisation's key is the one that iterates.
    const iterateKey = keys.pop();
    if (!iterateKey) throw new Error('no organisation was seeded');
    return { keys, iterateKey, ticketCount: this.#ticketCount };
  }

  /** Makes sure at least `count` tickets exist (in whole blocks). */
  async ensureTickets(count: number): Promise<void> {
    if (count <= this.#ticketCount) return;
    await this.#transaction((client) => this.#issue(client, count));
  }

  /**
   * The export case's `count` tickets (with their tier, orders and attendees), all of the
   * organisation whose events the SDK iterates (its key is `Seeded.iterateKey`).
   */
  async seedExportTickets(count: number): Promise<void> {
    const params = [this.#plan.organisations, count];
    await this.#transaction(
      async (client) => {
        await client.query(EXPORT_TIER_SQL, params);
        await client.query(EXPORT_ORDERS_SQL, params);
        await client.query(EXPORT_TICKETS_SQL, params);
        await client.query(EXPORT_ATTENDEES_SQL, params);
      },
      ['ticket_tiers', 'orders', 'tickets', 'attendees'],
    );
  }

  async #issue(client: pg.Client, count: number): Promise<void> {
    // Whole blocks of one order of 10 tickets for each organisation.
    const block = this.#plan.organisations * 10;
    const to = Math.ceil(count / block) * block;
    const from = this.#ticketCount;
    if (to <= from) return;
    const params = [from, to, this.#plan.organisations];
    await client.query(ORDERS_SQL, params);
    await client.query(TICKETS_SQL, params);
    await client.query(ATTENDEES_SQL, params);
    this.#ticketCount = to;
  }
}
