import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as C from '@boxoffice/contract';
import type { AppRoute, ClientInferRequest } from '@ts-rest/core';
import type { Boxoffice } from '../client';
import type { CheckinBatchItem, CheckinCreateParams } from './checkins';
import type { ExportCreateParams, ExportRow } from './exports';
import type * as T from './types';
import type { WebhookEventType } from '../webhooks';

type Body<R extends AppRoute> = ClientInferRequest<R> extends { body: infer B } ? B : never;

// Compile-time checks: `pnpm typecheck` fails if a call that must be refused type-checks.
declare const client: Boxoffice;
export function refused() {
  // @ts-expect-error a status that does not exist
  void client.events.list({ status: 'nope' });
  // @ts-expect-error a check-in names its ticket
  void client.checkins.create({});
  // @ts-expect-error by ticket_id or by code, not both
  void client.checkins.create({ ticket_id: 'tkt_1', code: 'ABC' });
  // @ts-expect-error an unknown field
  void client.events.update('evt_1', { colour: 'red' });
  void client.events.list({ status: ['draft', 'published'] });
  void client.checkins.create({ code: 'ABC', gate: 'North' });
  // @ts-expect-error a filter the tickets list does not take
  void client.exports.create({ resource: 'tickets', filters: { gate: 'North' } });
  // @ts-expect-error a status of another resource
  void client.exports.create({ resource: 'orders', filters: { status: 'valid' } });
  // @ts-expect-error paging is not a filter
  void client.exports.create({ resource: 'events', filters: { limit: 10 } });
  // @ts-expect-error no such list
  void client.exports.create({ resource: 'webhook_endpoints' });
  void client.exports.create({
    resource: 'checkins',
    filters: { gate: 'North', since: new Date() },
  });
  void client.exports.create({
    resource: 'tickets',
    filters: { status: ['valid'] },
    format: 'csv',
  });
}

describe('resource types', () => {
  it('are the contract’s types, written out', () => {
    expectTypeOf<T.Event>().toEqualTypeOf<C.Event>();
    expectTypeOf<T.Tier>().toEqualTypeOf<C.Tier>();
    expectTypeOf<T.Order>().toEqualTypeOf<C.Order>();
    expectTypeOf<T.Ticket>().toEqualTypeOf<C.Ticket>();
    expectTypeOf<T.Attendee>().toEqualTypeOf<C.Attendee>();
    expectTypeOf<T.Checkin>().toEqualTypeOf<C.Checkin>();
    expectTypeOf<T.Payout>().toEqualTypeOf<C.Payout>();
    expectTypeOf<T.WebhookEndpoint>().toEqualTypeOf<C.WebhookEndpoint>();
    expectTypeOf<T.WebhookEndpointWithSecret>().toEqualTypeOf<C.WebhookEndpointWithSecret>();
    expectTypeOf<WebhookEventType>().toEqualTypeOf<C.WebhookEventType>();
    expectTypeOf<T.EventStatus>().toEqualTypeOf<C.EventStatus>();
    expectTypeOf<T.TierStatus>().toEqualTypeOf<C.TierStatus>();
    expectTypeOf<T.OrderStatus>().toEqualTypeOf<C.OrderStatus>();
    expectTypeOf<T.TicketStatus>().toEqualTypeOf<C.TicketStatus>();
    expectTypeOf<T.PayoutStatus>().toEqualTypeOf<C.PayoutStatus>();
    expectTypeOf<T.CheckinDirection>().toEqualTypeOf<C.CheckinDirection>();
    expectTypeOf<T.EventCreateParams>().toEqualTypeOf<Body<C.Contract['events']['create']>>();
    expectTypeOf<T.EventUpdateParams>().toEqualTypeOf<Body<C.Contract['events']['update']>>();
    expectTypeOf<T.TierCreateParams>().toEqualTypeOf<Body<C.Contract['tiers']['create']>>();
    expectTypeOf<T.TierUpdateParams>().toEqualTypeOf<Body<C.Contract['tiers']['update']>>();
    expectTypeOf<T.CheckinCreateFields>().toEqualTypeOf<Body<C.Contract['checkins']['create']>>();
    expectTypeOf<T.CheckinBatchItemFields>().toEqualTypeOf<
      Body<C.Contract['checkins']['createBatch']>['checkins'][number]
    >();
    // List filters take the values themselves where the contract also takes any string.
    expectTypeOf<T.OrderListParams>().toExtend<C.OrderListQuery>();
    expectTypeOf<T.EventListParams>().toExtend<C.EventListQuery>();
    expectTypeOf<CheckinCreateParams>().toExtend<Body<C.Contract['checkins']['create']>>();
    expectTypeOf<{ checkins: CheckinBatchItem[] }>().toExtend<
      Body<C.Contract['checkins']['createBatch']>
    >();
    expectTypeOf<T.CheckinBatchResult>().toEqualTypeOf<C.CheckinBatchResult>();
    expectTypeOf<T.Export>().toEqualTypeOf<C.Export>();
    expectTypeOf<T.ExportStatus>().toEqualTypeOf<C.ExportStatus>();
    expectTypeOf<T.ExportListParams>().toExtend<C.ExportListQuery>();
    expectTypeOf<T.TicketExportFilters>().toExtend<C.ExportFilters<'tickets'>>();
    expectTypeOf<T.CheckinExportFilters>().toExtend<C.ExportFilters<'checkins'>>();
    expectTypeOf<ExportCreateParams<'orders'>>().toExtend<C.ExportCreateOf<'orders'>>();
    expect(refused).toBeTypeOf('function');
  });

  it('type an export’s rows by its resource', () => {
    type RowsOf<F extends (...args: never[]) => AsyncIterable<unknown>> =
      ReturnType<F> extends AsyncIterable<infer Row> ? Row : never;
    expectTypeOf<ExportRow<'tickets'>>().toEqualTypeOf<T.Ticket>();
    expectTypeOf<ExportRow<'checkins'>>().toEqualTypeOf<T.Checkin>();
    const _rowsOfCreated = async () => {
      const exp = await client.exports.create({ resource: 'attendees' });
      return client.exports.rows(await client.exports.waitUntilReady(exp));
    };
    expectTypeOf<Awaited<ReturnType<typeof _rowsOfCreated>>>().toEqualTypeOf<
      AsyncGenerator<T.Attendee, void, undefined>
    >();
    expectTypeOf<RowsOf<typeof client.exports.rows<'orders'>>>().toEqualTypeOf<T.Order>();
  });

  it('give a sync checkpoint on the lists that have one, and none on the webhook endpoints', () => {
    type SyncOf<P> = P extends PromiseLike<{ syncCheckpoint: infer S }> ? S : never;
    expectTypeOf<SyncOf<ReturnType<Boxoffice['events']['list']>>>().toEqualTypeOf<string>();
    expectTypeOf<SyncOf<ReturnType<Boxoffice['checkins']['list']>>>().toEqualTypeOf<string>();
    expectTypeOf<
      SyncOf<ReturnType<Boxoffice['webhookEndpoints']['list']>>
    >().toEqualTypeOf<undefined>();
  });
});
