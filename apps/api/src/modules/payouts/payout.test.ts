import { describe, expect, it } from 'vitest';
import { expectItem, expectList, expectResource } from '../../../test/assertions';
import { buildEvent, buildPayout } from '../../../test/fixtures';
import { expectIds, expectOwnerOnly, itRefusesQueries } from '../../../test/lists';
import { createTenant, useTestServer } from '../../../test/setup';

const PAYOUT = {
  prefix: 'po',
  fields: [
    'id',
    'event_id',
    'gross_amount',
    'fees_amount',
    'refunds_amount',
    'amount',
    'currency',
    'status',
    'period_start',
    'period_end',
    'arrival_date',
    'paid_at',
    'failure_reason',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: ['period_start', 'period_end', 'paid_at', 'created_at', 'updated_at'],
  money: ['gross_amount', 'fees_amount', 'refunds_amount', 'amount'],
} as const;

const server = useTestServer();
const { get } = server;

/** `n` minutes after a fixed instant, so payouts get distinct, ordered creation times. */
const minute = (n: number) => new Date(Date.UTC(2027, 2, 10, 12, n));

describe('GET /payouts/{id}', () => {
  it('shows a paid payout with its net amount', async () => {
    const tenant = await createTenant();
    const { event } = await buildEvent(tenant.organisationId, { tickets: 1, currency: 'EUR' });
    const payout = await buildPayout(tenant.organisationId, {
      eventId: event.id,
      grossAmount: 1_234_567,
      feesAmount: 61_728,
      refundsAmount: 10_000,
      currency: 'EUR',
      status: 'paid',
      periodStart: new Date('2027-03-01T00:00:00+01:00'),
      periodEnd: new Date('2027-03-08T00:00:00+01:00'),
      arrivalDate: '2027-03-11',
      paidAt: new Date('2027-03-11T08:30:00Z'),
      createdAt: new Date('2027-03-09T06:00:00Z'),
    });
    const data = expectItem(await get(tenant, `/api/v1/payouts/${payout.id}`));
    expectResource(data, PAYOUT);
    expect(data).toEqual({
      id: payout.id,
      event_id: event.id,
      gross_amount: 1_234_567,
      fees_amount: 61_728,
      refunds_amount: 10_000,
      amount: 1_162_839,
      currency: 'EUR',
      status: 'paid',
      period_start: '2027-02-28T23:00:00.000Z',
      period_end: '2027-03-07T23:00:00.000Z',
      arrival_date: '2027-03-11',
      paid_at: '2027-03-11T08:30:00.000Z',
      failure_reason: null,
      livemode: true,
      created_at: '2027-03-09T06:00:00.000Z',
      updated_at: '2027-03-11T08:30:00.000Z',
    });
    // The list renders it alike: a calendar date is not read as a time.
    const listed = expectList(await get(tenant, '/api/v1/payouts'));
    expect(listed.data).toEqual([data]);
  });

  it('shows an organisation-wide failed payout', async () => {
    const tenant = await createTenant();
    const payout = await buildPayout(tenant.organisationId, {
      status: 'failed',
      failureReason: 'account_closed',
    });
    expect(expectItem(await get(tenant, `/api/v1/payouts/${payout.id}`))).toMatchObject({
      event_id: null,
      status: 'failed',
      failure_reason: 'account_closed',
      arrival_date: null,
      paid_at: null,
      amount: 93_000,
    });
  });

  it('is a 404 for unknown ids, other kinds and other organisations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { event } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const payout = await buildPayout(tenant.organisationId, { eventId: event.id });
    await expectOwnerOnly(server, '/api/v1/payouts', {
      owner: tenant,
      other,
      id: payout.id,
      unknown: ['po_0000000000000000000000', event.id, `po_${event.id.slice(4)}`],
      message: 'payout not found',
    });
  });
});

describe('GET /payouts', () => {
  it('lists the organisation’s payouts in creation order, with the filters of §7', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const one = await buildEvent(tenant.organisationId, { tickets: 1 });
    const two = await buildEvent(tenant.organisationId, { tickets: 1 });
    const foreign = await buildEvent(other.organisationId, { tickets: 1 });
    await buildPayout(other.organisationId, { eventId: foreign.event.id, createdAt: minute(0) });
    // Recorded out of creation order: the list sorts by created_at, not by insertion.
    const c = await buildPayout(tenant.organisationId, {
      eventId: two.event.id,
      status: 'in_transit',
      createdAt: minute(3),
    });
    const a = await buildPayout(tenant.organisationId, {
      eventId: one.event.id,
      status: 'paid',
      paidAt: minute(50),
      createdAt: minute(1),
    });
    const d = await buildPayout(tenant.organisationId, {
      status: 'cancelled',
      createdAt: minute(4),
    });
    const b = await buildPayout(tenant.organisationId, {
      eventId: one.event.id,
      status: 'pending',
      createdAt: minute(2),
    });
    const all = expectIds(await get(tenant, '/api/v1/payouts'), [a.id, b.id, c.id, d.id], {
      total: 4,
      page: 1,
      limit: 20,
    });
    expectResource(all.data[0], PAYOUT);

    const cases: [string, string[]][] = [
      [`event_id=${one.event.id}`, [a.id, b.id]],
      [`event_id=${two.event.id}`, [c.id]],
      [`event_id=${foreign.event.id}`, []],
      ['status=paid', [a.id]],
      ['status=pending,in_transit', [b.id, c.id]],
      ['status=failed', []],
      ['status=cancelled&status=paid', [a.id, d.id]],
      [`status=pending&event_id=${one.event.id}`, [b.id]],
      ['limit=2&page=2', [c.id, d.id]],
      ['limit=3&page=2', [d.id]],
      ['page=2', []],
    ];
    for (const [query, expected] of cases) {
      const list = expectIds(await get(tenant, `/api/v1/payouts?${query}`), expected, {}, query);
      if (!query.includes('page')) expect(list.total, query).toBe(expected.length);
      else expect(list.total, query).toBe(4);
    }
  });

  it('filters by updated_since, ordered by updated_at then id', async () => {
    const tenant = await createTenant();
    // A payout last changed when it was paid, or else when it was recorded.
    const early = await buildPayout(tenant.organisationId, { createdAt: minute(1) });
    const paidLate = await buildPayout(tenant.organisationId, {
      status: 'paid',
      paidAt: minute(40),
      createdAt: minute(2),
    });
    const late = await buildPayout(tenant.organisationId, { createdAt: minute(30) });
    const since = minute(20).toISOString();
    expectIds(await get(tenant, `/api/v1/payouts?updated_since=${since}`), [late.id, paidLate.id], {
      total: 2,
    });
    expectIds(await get(tenant, '/api/v1/payouts?updated_since=2000-01-01T00:00:00Z'), [
      early.id,
      late.id,
      paidLate.id,
    ]);
  });

  itRefusesQueries(server, '/api/v1/payouts', [
    ['status=bogus', 'status'],
    ['status=paid,settled', 'status'],
    ['event_id=', 'event_id'],
    ['event_id=evt_%00', 'event_id'],
    ['limit=101', 'limit'],
    ['page=-1', 'page'],
  ]);
});
