import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { toAttendeeResource } from '../../modules/attendees/attendee.service';
import { issueOrder, refundOrder, toOrderResource } from '../../modules/orders/order.service';
import {
  liveOrganisationOf,
  resetTestEnvironment,
} from '../../modules/organisations/test-environment.service';
import { advancePayout } from '../../modules/payouts/payout-status.service';
import { toPayoutResource } from '../../modules/payouts/payout.service';
import { toTicketResource } from '../../modules/tickets/ticket.service';
import { write } from '../write';

const s = initServer();

/**
 * The test helpers: the checkout's and the bank's part, played on request on the test data. Only
 * test keys reach these handlers (the access checks refuse a live key: `testModeOnly`), and each is
 * a write of the public API like any other: one transaction with its change records and, with an
 * `Idempotency-Key`, its stored answer.
 */
export const testHelpersRouter = () =>
  s.router(contract.testHelpers, {
    createOrder: ({ body, res }) =>
      write(res, async (tx) => {
        const { order, tickets, attendees } = await issueOrder(tx, {
          eventId: body.event_id,
          tierId: body.tier_id,
          quantity: body.quantity,
          buyerName: body.buyer_name,
          buyerEmail: body.buyer_email,
        });
        return {
          status: 201 as const,
          body: {
            data: {
              ...toOrderResource(order, tx.livemode),
              tickets: tickets.map((ticket) => toTicketResource(ticket, tx.livemode)),
              attendees: attendees.map((attendee) => toAttendeeResource(attendee, tx.livemode)),
            },
          },
        };
      }),
    refundOrder: ({ params, res }) =>
      write(res, async (tx) => {
        const { order } = await refundOrder(tx, params.id);
        return { status: 200 as const, body: { data: toOrderResource(order, tx.livemode) } };
      }),
    advancePayout: ({ params, body, res }) =>
      write(res, async (tx) => {
        const payout = await advancePayout(tx, params.id, { fail: body?.fail });
        return { status: 200 as const, body: { data: toPayoutResource(payout, tx.livemode) } };
      }),
    reset: ({ res }) => {
      // The reset runs its own transactions (the sample data is written by several at once); the
      // write's transaction holds the idempotency key and stores the answer once they are done.
      const { em } = res.locals;
      return write(res, async (tx) => {
        const counts = await resetTestEnvironment(
          em,
          await liveOrganisationOf(em, tx.organisationId),
        );
        return { status: 200 as const, body: { data: counts } };
      });
    },
  });
