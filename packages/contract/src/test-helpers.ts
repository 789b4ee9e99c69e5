import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { AttendeeSchema } from './attendees';
import {
  IdPathSchema,
  itemEnvelope,
  mutationResponses,
  TextSchema,
  testHelperRoute,
} from './common';
import { OrderSchema } from './orders';
import { PayoutSchema } from './payouts';
import { resourceRouter } from './resource-router';
import { TicketSchema } from './tickets';

const c = initContract();

export const TestOrderCreateSchema = z
  .object({
    /** The event, `evt_…`: a published one of the test data (an unknown one is a 422). */
    event_id: z.string().min(1).max(80),
    /** The ticket tier to sell, `tier_…`, of that event; on sale now. */
    tier_id: z.string().min(1).max(80),
    /** How many tickets: 1 to 20, and at most the tier's `max_per_order` and what is left. */
    quantity: z.number().int(),
    /** The buyer's name, 1–200 characters (default `Test Buyer`); the attendee of each ticket. */
    buyer_name: TextSchema.trim().min(1).max(200).optional(),
    /** The buyer's email address (default `test.buyer@example.com`). */
    buyer_email: TextSchema.trim().email().max(320).optional(),
  })
  .strict();
export type TestOrderCreate = z.infer<typeof TestOrderCreateSchema>;

/** A test order as created: the order, with the tickets it issued and their attendees. */
export const TestOrderSchema = OrderSchema.extend({
  /** The order's tickets, each with its barcode secret (`code`), ready to be checked in. */
  tickets: z.array(TicketSchema),
  /** The tickets' attendees, in the order of `tickets`. */
  attendees: z.array(AttendeeSchema),
});
export type TestOrder = z.infer<typeof TestOrderSchema>;

export const TestPayoutAdvanceSchema = z
  .object({
    /**
     * `true` fails the payout instead of paying it (a pending one by way of `in_transit`), with a
     * `failure_reason`. Default `false`.
     */
    fail: z.boolean().optional(),
  })
  .strict();
export type TestPayoutAdvance = z.infer<typeof TestPayoutAdvanceSchema>;

/** What a reset of the test data left: the fresh sample data, counted by kind. */
export const TestDataResetSchema = z.object({
  /** Events of the new sample data. */
  events: z.number().int(),
  /** Ticket tiers of the new sample data. */
  tiers: z.number().int(),
  /** Orders of the new sample data. */
  orders: z.number().int(),
  /** Tickets of the new sample data. */
  tickets: z.number().int(),
  /** Attendees of the new sample data. */
  attendees: z.number().int(),
  /** Check-ins of the new sample data. */
  checkins: z.number().int(),
  /** Payouts of the new sample data. */
  payouts: z.number().int(),
});
export type TestDataReset = z.infer<typeof TestDataResetSchema>;

const TEST_KEY_ONLY =
  'Test mode only: a `bxo_test_…` key; a live key gets a 403 `test_mode_only` and nothing changes.';

/**
 * Test helpers: what the checkout and the payment side do to an organisation's data, done on its
 * test data on request, to try an integration end to end.
 */
export const testHelpersContract = resourceRouter({
  createOrder: {
    method: 'POST',
    path: '/test_helpers/orders',
    body: TestOrderCreateSchema,
    responses: { 201: itemEnvelope(TestOrderSchema), ...mutationResponses },
    metadata: testHelperRoute,
    summary: 'Create a test order',
    description: `A paid order of \`quantity\` tickets of one tier, as a buyer at the checkout would place it: the event must be published and the tier on sale, within its \`max_per_order\` and with enough tickets left. The answer is the order with its tickets (their barcode \`code\`s, ready for \`POST /checkins\`) and their attendees; the changes are recorded and sent to webhooks as a real sale's. ${TEST_KEY_ONLY}`,
  },
  refundOrder: {
    method: 'POST',
    path: '/test_helpers/orders/:id/refund',
    pathParams: IdPathSchema,
    body: c.noBody(),
    responses: { 200: itemEnvelope(OrderSchema), ...mutationResponses },
    metadata: testHelperRoute,
    summary: 'Refund a test order',
    description: `Refunds a completed order in full: it becomes \`refunded\`, its tickets void (checked-in ones too) and their seats go back to the tier. An order already refunded, cancelled or not paid is a 409. ${TEST_KEY_ONLY}`,
  },
  advancePayout: {
    method: 'POST',
    path: '/test_helpers/payouts/:id/advance',
    pathParams: IdPathSchema,
    body: TestPayoutAdvanceSchema.optional(),
    responses: { 200: itemEnvelope(PayoutSchema), ...mutationResponses },
    metadata: testHelperRoute,
    summary: 'Advance a test payout',
    description: `Moves a payout one step on, as the bank would: \`pending → in_transit → paid\`; with \`fail: true\`, to \`failed\` (a pending one by way of \`in_transit\`). A payout already \`paid\`, \`failed\` or \`cancelled\` is a 409. The body is optional. ${TEST_KEY_ONLY}`,
  },
  reset: {
    method: 'POST',
    path: '/test_helpers/reset',
    body: c.noBody(),
    responses: { 200: itemEnvelope(TestDataResetSchema), ...mutationResponses },
    metadata: testHelperRoute,
    summary: 'Reset the test data',
    description: `Deletes all the test data (events, tiers, orders, tickets, attendees, check-ins, payouts, their change records and webhook messages, and the stored answers of the test keys' idempotency keys) and revoked test keys, and makes fresh sample data; the answer counts it. Active test keys and test webhook endpoints stay. Live data is never touched. While the test data is being made (its first use, or another reset), a 409 \`test_data_busy\`: try again in a few seconds. ${TEST_KEY_ONLY}`,
  },
});
