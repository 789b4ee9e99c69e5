import { beforeAll, describe, expect, it } from 'vitest';
import { LISTS, TABLE_OF_LIST } from '../../../test/fixtures';
import { getTestOrm } from '../../../test/setup';
import type { Orm } from '../../db/orm';
import { AppError } from '../../core/errors';
import { createOrganisation } from '../organisations/organisation.service';
import { seedDemoData, type SeedCounts } from './demo.service';

let orm: Orm;
beforeAll(async () => {
  orm = await getTestOrm();
});

async function newOrganisation(): Promise<string> {
  const org = await createOrganisation(orm.em.fork(), { name: 'Demo seed test', plan: 'pro' });
  return org.id;
}

/** Rows of `sql`, with `?` bound to the organisation. */
function rows<T extends object>(sql: string, organisationId: string): Promise<T[]> {
  const params = Array.from(sql.matchAll(/\?/g), () => organisationId);
  return orm.em.fork().getConnection().execute<T[]>(sql, params);
}

/** Raw rows carry timestamps as strings. */
const ms = (value: Date | string | null | undefined): number =>
  new Date(value ?? Number.NaN).getTime();

async function count(sql: string, organisationId: string): Promise<number> {
  const [row] = await rows<{ n: string | number }>(sql, organisationId);
  return Number(row?.n ?? 0);
}

/** No row of `from` (tables and a `where` naming the organisation as `?`); `what` says which. */
async function expectNone(what: string, from: string, organisationId: string): Promise<void> {
  expect(await count(`select count(*) as n from ${from}`, organisationId), what).toBe(0);
}

const statuses = async (table: string, organisationId: string): Promise<string[]> =>
  (
    await rows<{ status: string }>(
      `select distinct status from ${table} where organisation_id = ? order by status`,
      organisationId,
    )
  ).map((row) => row.status);

describe('seedDemoData', () => {
  let organisationId: string;
  let counts: SeedCounts;
  const now = new Date();

  beforeAll(async () => {
    organisationId = await newOrganisation();
    counts = await seedDemoData(orm.em.fork(), organisationId, { now });
  }, 60_000);

  it('returns the counts of the rows it wrote', async () => {
    const tables: Record<keyof SeedCounts, string> = TABLE_OF_LIST;
    for (const [key, table] of Object.entries(tables) as [keyof SeedCounts, string][]) {
      const n = await count(
        `select count(*) as n from ${table} where organisation_id = ?`,
        organisationId,
      );
      expect({ [key]: n }).toEqual({ [key]: counts[key] });
    }
    expect(counts.events).toBe(6);
    expect(counts.tickets).toBeGreaterThanOrEqual(300);
    expect(counts.attendees).toBe(counts.tickets);
    expect(counts.checkins).toBeGreaterThan(0);
  });

  it('records the creation of every row it wrote, and each object as it is now', async () => {
    const tables = {
      event: 'events',
      tier: 'ticket_tiers',
      order: 'orders',
      ticket: 'tickets',
      attendee: 'attendees',
      checkin: 'checkins',
      payout: 'payouts',
    };
    for (const [object, table] of Object.entries(tables)) {
      const created = await count(
        `select count(*) as n from change_records where organisation_id = ? and type = '${object}.created'`,
        organisationId,
      );
      expect(created, object).toBe(
        await count(`select count(*) as n from ${table} where organisation_id = ?`, organisationId),
      );
      // The last record of each object holds its current state.
      const stale = await count(
        `select count(*) as n from ${table} t
           join lateral (select data from change_records c
                          where c.organisation_id = t.organisation_id and c.object_id = t.id
                          order by c.position desc limit 1) last on true
          where t.organisation_id = ? and (last.data->>'updated_at')::timestamptz <> t.updated_at`,
        organisationId,
      );
      expect(stale, object).toBe(0);
    }
  });

  it('covers every state of events, tiers, orders, tickets and payouts', async () => {
    expect(await statuses('events', organisationId)).toEqual([
      'cancelled',
      'completed',
      'draft',
      'published',
    ]);
    expect(await statuses('ticket_tiers', organisationId)).toEqual([
      'hidden',
      'on_sale',
      'paused',
      'sold_out',
    ]);
    expect(await statuses('orders', organisationId)).toEqual([
      'cancelled',
      'completed',
      'pending',
      'refunded',
    ]);
    expect(await statuses('tickets', organisationId)).toEqual(['checked_in', 'valid', 'void']);
    expect(await statuses('payouts', organisationId)).toEqual([
      'cancelled',
      'failed',
      'in_transit',
      'paid',
      'pending',
    ]);
    const currencies = await rows<{ currency: string }>(
      'select distinct currency from events where organisation_id = ?',
      organisationId,
    );
    expect(currencies.map((row) => row.currency)).toEqual(expect.arrayContaining(['EUR', 'GBP']));
  });

  it('voids exactly the tickets of cancelled and refunded orders', async () => {
    await expectNone(
      'tickets whose void status disagrees with their order',
      `tickets t join orders o on o.id = t.order_id
        where t.organisation_id = ?
          and (t.status = 'void') <> (o.status in ('cancelled', 'refunded'))`,
      organisationId,
    );
    await expectNone(
      'void tickets without voided_at',
      `tickets where organisation_id = ? and status = 'void' and voided_at is null`,
      organisationId,
    );
  });

  it('issues tickets only for paid orders, one per line', async () => {
    const wrong = await rows<{ id: string }>(
      `select o.id from orders o left join tickets t on t.order_id = o.id
        where o.organisation_id = ?
        group by o.id, o.paid_at, o.ticket_count
       having count(t.id) <> case when o.paid_at is null then 0 else o.ticket_count end`,
      organisationId,
    );
    expect(wrong).toEqual([]);
    await expectNone(
      'tickets of pending orders',
      `tickets t join orders o on o.id = t.order_id
        where t.organisation_id = ? and o.status = 'pending'`,
      organisationId,
    );
  });

  it("keeps each tier's quantity_sold equal to its live tickets, and sold-out tiers full", async () => {
    const tiers = await rows<{
      name: string;
      status: string;
      quantity_total: number | null;
      quantity_sold: number;
      live: string | number;
    }>(
      `select t.name, t.status, t.quantity_total, t.quantity_sold,
              (select count(*) from tickets k where k.tier_id = t.id and k.status <> 'void') as live
         from ticket_tiers t where t.organisation_id = ?`,
      organisationId,
    );
    for (const tier of tiers) {
      expect({ tier: tier.name, sold: tier.quantity_sold }).toEqual({
        tier: tier.name,
        sold: Number(tier.live),
      });
      if (tier.quantity_total != null)
        expect(tier.quantity_sold).toBeLessThanOrEqual(tier.quantity_total);
      if (tier.status === 'sold_out') expect(tier.quantity_sold).toBe(tier.quantity_total);
    }
  });

  it("keeps attendees' checked_in in step with their tickets and scans on the right events", async () => {
    await expectNone(
      'attendees out of step with their tickets',
      `attendees a join tickets t on t.id = a.ticket_id
        where a.organisation_id = ? and a.checked_in <> (t.status = 'checked_in')`,
      organisationId,
    );
    const scannedEvents = await rows<{ status: string; direction: string }>(
      `select distinct e.status, c.direction from checkins c join events e on e.id = c.event_id
        where c.organisation_id = ? order by 1, 2`,
      organisationId,
    );
    expect(scannedEvents).toEqual([
      { status: 'completed', direction: 'entry' },
      { status: 'completed', direction: 'exit' },
      { status: 'published', direction: 'entry' },
      { status: 'published', direction: 'exit' },
    ]);
    await expectNone(
      'scans in the future',
      `checkins where organisation_id = ? and scanned_at > now()`,
      organisationId,
    );
  });

  it('gives the completed event its orders before it started', async () => {
    await expectNone(
      'orders of the completed event placed after it started',
      `orders o join events e on e.id = o.event_id
        where o.organisation_id = ? and e.status = 'completed' and o.placed_at >= e.starts_at`,
      organisationId,
    );
    const [completed] = await rows<{ ends_at: string; orders: string | number }>(
      `select e.ends_at, (select count(*) from orders o where o.event_id = e.id) as orders
         from events e where e.organisation_id = ? and e.status = 'completed'`,
      organisationId,
    );
    expect(ms(completed!.ends_at)).toBeLessThan(now.getTime());
    expect(Number(completed!.orders)).toBeGreaterThan(0);
    await expectNone(
      'orders of draft events',
      `orders o join events e on e.id = o.event_id
        where o.organisation_id = ? and e.status = 'draft'`,
      organisationId,
    );
  });

  it('pays out gross less fees and refunds, with the fields each status needs', async () => {
    const payouts = await rows<{
      status: string;
      gross_amount: number;
      fees_amount: number;
      refunds_amount: number;
      amount: number;
      currency: string;
      event_currency: string;
      arrival_date: string | null;
      paid_at: string | null;
      failure_reason: string | null;
      period_start: string;
      period_end: string;
    }>(
      `select p.*, e.currency as event_currency
         from payouts p join events e on e.id = p.event_id where p.organisation_id = ?`,
      organisationId,
    );
    expect(payouts.length).toBeGreaterThan(0);
    for (const payout of payouts) {
      expect(payout.amount).toBe(payout.gross_amount - payout.fees_amount - payout.refunds_amount);
      expect(payout.amount).toBeGreaterThan(0);
      expect(payout.currency).toBe(payout.event_currency);
      expect(ms(payout.period_end)).toBeGreaterThan(ms(payout.period_start));
      expect(ms(payout.period_end)).toBeLessThanOrEqual(now.getTime());
      if (payout.status === 'paid') {
        expect(payout.arrival_date).not.toBeNull();
        expect(payout.paid_at).not.toBeNull();
      } else {
        expect(payout.paid_at).toBeNull();
      }
      if (payout.status === 'failed') expect(payout.failure_reason).toBeTruthy();
      else expect(payout.failure_reason).toBeNull();
    }
    const refunds = await count(
      'select coalesce(sum(refunds_amount), 0) as n from payouts where organisation_id = ?',
      organisationId,
    );
    expect(refunds).toBeGreaterThan(0);
  });
});

describe('seedDemoData options', () => {
  it('seeds fewer events around the given reference time', async () => {
    const organisationId = await newOrganisation();
    const now = new Date('2027-06-15T12:00:00Z');
    const counts = await seedDemoData(orm.em.fork(), organisationId, { events: 2, now });
    expect(counts.events).toBe(2);
    expect(await statuses('events', organisationId)).toEqual(['completed', 'published']);
    const [live] = await rows<{ starts_at: string; ends_at: string }>(
      `select starts_at, ends_at from events where organisation_id = ? and status = 'published'`,
      organisationId,
    );
    // The published one is happening at the reference time.
    expect(ms(live!.starts_at)).toBeLessThan(now.getTime());
    expect(ms(live!.ends_at)).toBeGreaterThan(now.getTime());
    const latest = await rows<{ at: string | null }>(
      'select max(placed_at) as at from orders where organisation_id = ?',
      organisationId,
    );
    expect(ms(latest[0]!.at)).toBeLessThanOrEqual(now.getTime());
  });

  it('repeats the templates in later editions for more events', async () => {
    const organisationId = await newOrganisation();
    const counts = await seedDemoData(orm.em.fork(), organisationId, { events: 8 });
    expect(counts.events).toBe(8);
    const names = await rows<{ name: string }>(
      'select name from events where organisation_id = ?',
      organisationId,
    );
    expect(new Set(names.map((row) => row.name)).size).toBe(8);
  }, 60_000);

  it('does nothing for zero events and refuses a bad count', async () => {
    const organisationId = await newOrganisation();
    expect(await seedDemoData(orm.em.fork(), organisationId, { events: 0 })).toEqual(
      Object.fromEntries(LISTS.map((list) => [list, 0])),
    );
    await expect(
      seedDemoData(orm.em.fork(), organisationId, { events: -1 }),
    ).rejects.toBeInstanceOf(AppError);
    await expect(seedDemoData(orm.em.fork(), organisationId, { events: 2.5 })).rejects.toThrow(
      /events must be an integer/,
    );
  });
});
