import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import * as attendees from '../../modules/attendees/attendee.service';
import * as events from '../../modules/events/event.service';
import * as orders from '../../modules/orders/order.service';
import * as payouts from '../../modules/payouts/payout.service';
import * as tickets from '../../modules/tickets/ticket.service';
import * as tiers from '../../modules/tiers/tier.service';
import type { ScanOutcome } from '../metrics';
import type { ExportQueue } from '../../modules/exports/export.service';
import type { UrlPolicy } from '../../modules/webhooks/url-guard';
import { checkinsRouter } from './checkins.router';
import { exportsRouter } from './exports.router';
import { readHandlers } from './read-handlers';
import { testHelpersRouter } from './test-helpers.router';
import { webhookEndpointsRouter } from './webhook-endpoints.router';
import { writeHandlers } from './write-handlers';

const s = initServer();

/**
 * The public API, resource by resource: each one's reads (its list and one object by id), and the
 * writes of those the API changes. Check-ins, which count every scan, have a router of their own, as
 * have webhook endpoints and the test helpers.
 */
export const publicRouter = (
  onScan: (outcome: ScanOutcome) => void,
  webhookUrls: UrlPolicy,
  exportQueue: ExportQueue | undefined,
) =>
  s.router(contract, {
    events: {
      ...readHandlers({
        name: 'events',
        list: events.eventList.page,
        get: events.getEvent,
        render: events.toEventResource,
      }),
      ...writeHandlers({
        create: events.createEvent,
        update: events.updateEvent,
        render: events.toEventResource,
      }),
    },
    tiers: {
      ...readHandlers({
        name: 'tiers',
        list: tiers.tierList.page,
        get: tiers.getTier,
        render: tiers.toTierResource,
      }),
      ...writeHandlers({
        create: tiers.createTier,
        update: tiers.updateTier,
        render: tiers.toTierResource,
      }),
    },
    orders: readHandlers({
      name: 'orders',
      list: orders.orderList.page,
      get: orders.getOrder,
      render: orders.toOrderResource,
    }),
    tickets: readHandlers({
      name: 'tickets',
      list: tickets.ticketList.page,
      get: tickets.getTicket,
      render: tickets.toTicketResource,
    }),
    attendees: readHandlers({
      name: 'attendees',
      list: attendees.attendeeList.page,
      get: attendees.getAttendee,
      render: attendees.toAttendeeResource,
    }),
    checkins: checkinsRouter(onScan),
    payouts: readHandlers({
      name: 'payouts',
      list: payouts.payoutList.page,
      get: payouts.getPayout,
      render: payouts.toPayoutResource,
    }),
    webhookEndpoints: webhookEndpointsRouter(webhookUrls),
    exports: exportsRouter(exportQueue),
    testHelpers: testHelpersRouter(),
  });
