import type {
  Attendee,
  Checkin,
  CheckinBatchCreate,
  CheckinBatchResult,
  CheckinCreate,
  Event,
  EventCreate,
  Export,
  ExportCreate,
  EventUpdate,
  Order,
  Payout,
  TestDataReset,
  TestOrder,
  TestOrderCreate,
  TestPayoutAdvance,
  Ticket,
  Tier,
  TierCreate,
  TierUpdate,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from '@boxoffice/contract';
import type { OperationKey } from './operations';

// Examples for the OpenAPI document. They describe one small world, so that a reader can follow an
// id from one operation to the next: one organisation's festival in Bristol, its two ticket tiers,
// an order of two tickets, their attendees, one of them scanned in at the door, a payout and two
// webhook endpoints. Ids are made as the server makes them (the first 8 characters after the prefix
// are the creation time in milliseconds), and every read shows the world at one moment: the
// festival's afternoon, half an hour after the doors opened. A create or update answers with the
// object as it was at that write, so it may be an earlier version of what the reads show.

/** A request body, named in the operation's `requests` as in an OpenAPI `examples` map. */
export interface RequestExample {
  /** One line on what the request does. */
  summary: string;
  /** The JSON body as a client sends it. */
  value: unknown;
}

/**
 * The example of one operation. `requests` holds the request bodies by name, as an OpenAPI
 * `examples` map: one for most writes, several where a route takes different shapes
 * (`checkins.create` by `ticket_id` or by `code`). Reads and `DELETE`, which take no body, have
 * none. `response` is the success body (the 200 or 201), the answer to each of `requests`.
 */
export interface OperationExample {
  /** What the example shows, e.g. the filters of a list. */
  summary?: string;
  requests?: Readonly<Record<string, RequestExample>>;
  response: unknown;
}

/** A failure as the server answers it: the status and the `{ error, code }` body. */
export interface ErrorExample {
  status: number;
  body: {
    error: string;
    code: string;
    /** Validation failures only: one entry per problem, the first of which is `error`. */
    details?: readonly { field: string; message: string }[];
    /** 500s only: the id to quote when reporting the problem. */
    request_id?: string;
  };
}

// ---------------------------------------------------------------------------
// The world's ids and moments.

const EVENT_ID = 'evt_0VBkyNxoE0MOYTHvx6bk342X';
const GENERAL_TIER_ID = 'tier_0VBkznGoKYS1gLP9l3pNYKpy';
const DECK_TIER_ID = 'tier_0VBl0Ci0o1aTJaQbgUqPUe8m';
const ORDER_ID = 'ord_0VJcaviD05z2c3SumECyXP8u';
const PRIYA_TICKET_ID = 'tkt_0VJcaviDUprZG4dIYCHg4rvs';
const TOM_TICKET_ID = 'tkt_0VJcaviDntJa8nmFkt0jPgEj';
const PRIYA_ATTENDEE_ID = 'att_0VJcaviD13UKU6wxwrnzs6Ku';
const TOM_ATTENDEE_ID = 'att_0VJcaviDEs66QTCmDu1UbvtL';
const CHECKIN_ID = 'chk_0VPj23GBMDBQmEE1exffk07I';
const PAYOUT_ID = 'po_0VO5BspKuiYndvQRTcsImjXS';
/** The door scanners' API key, with the `read` and `checkins:write` scopes. */
const DOOR_KEY_ID = 'key_0VOzEnpqRiSM7oiXng3bojIJ';
const CRM_ENDPOINT_ID = 'we_0VGCKMNgbnXyJxrbUjeFuGRt';
const DOOR_ENDPOINT_ID = 'we_0VPYGFbpEyG5rJRzwRIJQc5L';

const EVENT_CREATED_AT = '2026-02-20T09:14:27.512Z';
const EVENT_PUBLISHED_AT = '2026-03-02T10:00:12.806Z';
const ORDER_PLACED_AT = '2026-05-14T18:42:09.337Z';
/** When the first of the order's tickets was scanned in: the check-in's receipt. */
const ADMITTED_AT = '2026-07-18T12:00:48.215Z';
/** Every list below was served at 13:30:04.611Z; a walk's checkpoint is that less 60 s. */
const SYNC_CHECKPOINT = '2026-07-18T13:29:04.611Z';

const CRM_EVENTS = [
  'order.created',
  'order.updated',
  'attendee.created',
  'attendee.updated',
] as const satisfies WebhookEndpoint['events'];

// ---------------------------------------------------------------------------
// The objects, as the reads show them.

const event: Event = {
  id: EVENT_ID,
  name: 'Harbour Lights Festival',
  description:
    'A day of live music, street food and lantern-lit boats on the harbour, ending with the lantern parade at dusk.',
  venue: 'Harbourside Amphitheatre, Bristol',
  timezone: 'Europe/London',
  // 14:00 to 22:30 British Summer Time; doors at 13:00.
  starts_at: '2026-07-18T13:00:00.000Z',
  ends_at: '2026-07-18T21:30:00.000Z',
  doors_open_at: '2026-07-18T12:00:00.000Z',
  currency: 'GBP',
  capacity: 2500,
  status: 'published',
  published_at: EVENT_PUBLISHED_AT,
  cancelled_at: null,
  livemode: true,
  created_at: EVENT_CREATED_AT,
  updated_at: EVENT_PUBLISHED_AT,
};

const generalTier: Tier = {
  id: GENERAL_TIER_ID,
  event_id: EVENT_ID,
  name: 'General admission',
  description: 'Standing entry to the festival site and all three stages.',
  price: 4500,
  currency: 'GBP',
  quantity_total: 2000,
  quantity_sold: 1268,
  quantity_available: 732,
  max_per_order: 6,
  sales_start_at: null,
  sales_end_at: null,
  sort_order: 0,
  status: 'on_sale',
  livemode: true,
  created_at: '2026-02-20T09:20:03.118Z',
  // Each sale stamps the tier: this is the morning's last one.
  updated_at: '2026-07-18T11:47:20.093Z',
};

/** The deck sold out in June and was given 30 more seats: see `tiers.update`. */
const deckTier: Tier = {
  id: DECK_TIER_ID,
  event_id: EVENT_ID,
  name: 'VIP harbour deck',
  description: 'A seat on the deck over the water, with its own bar and early entry.',
  price: 12000,
  currency: 'GBP',
  quantity_total: 180,
  quantity_sold: 150,
  quantity_available: 30,
  max_per_order: 4,
  sales_start_at: null,
  sales_end_at: '2026-07-17T22:00:00.000Z',
  sort_order: 1,
  status: 'on_sale',
  livemode: true,
  created_at: '2026-02-20T09:21:40.904Z',
  updated_at: '2026-06-22T14:05:51.377Z',
};

const order: Order = {
  id: ORDER_ID,
  reference: 'BX-89QNRV',
  event_id: EVENT_ID,
  buyer_name: 'Priya Shah',
  buyer_email: 'priya.shah@example.com',
  status: 'completed',
  // Two general admission tickets at £45.00, and a booking fee of £2.25 each.
  subtotal: 9000,
  fees: 450,
  total: 9450,
  refunded_amount: 0,
  currency: 'GBP',
  ticket_count: 2,
  placed_at: ORDER_PLACED_AT,
  paid_at: ORDER_PLACED_AT,
  cancelled_at: null,
  livemode: true,
  created_at: ORDER_PLACED_AT,
  updated_at: ORDER_PLACED_AT,
};

const priyaTicket: Ticket = {
  id: PRIYA_TICKET_ID,
  order_id: ORDER_ID,
  event_id: EVENT_ID,
  tier_id: GENERAL_TIER_ID,
  attendee_id: PRIYA_ATTENDEE_ID,
  code: 'oaSTL7uUsX0nNEwsgxDBwP5u',
  status: 'checked_in',
  price: 4500,
  currency: 'GBP',
  checked_in_at: ADMITTED_AT,
  voided_at: null,
  livemode: true,
  created_at: ORDER_PLACED_AT,
  updated_at: ADMITTED_AT,
};

/** The order's other ticket, of the same tier: not scanned yet. */
const tomTicket: Ticket = {
  ...priyaTicket,
  id: TOM_TICKET_ID,
  attendee_id: TOM_ATTENDEE_ID,
  code: 'CMWjODPPJoUP78kmtl3m27yE',
  status: 'valid',
  checked_in_at: null,
  updated_at: ORDER_PLACED_AT,
};

/**
 * The door team's export of the festival's tickets, made in the afternoon: ready seven seconds
 * later, its file kept for a day.
 */
const EXPORT_ID = 'exp_0VPjBv66Zp4sWq8nRt2LbX5c';
const EXPORT_CREATED_AT = '2026-07-18T12:40:00.118Z';
const EXPORT_READY_AT = '2026-07-18T12:40:07.342Z';

/** Its file: the tickets as the list showed them at the export's snapshot, one per line. */
const ticketFile = [priyaTicket, tomTicket].map((ticket) => `${JSON.stringify(ticket)}\n`).join('');

const ticketExport: Export = {
  id: EXPORT_ID,
  resource: 'tickets',
  filters: { event_id: EVENT_ID },
  format: 'ndjson',
  status: 'ready',
  row_count: 2,
  size_bytes: Buffer.byteLength(ticketFile),
  // The snapshot was taken when the run began, a moment after the request; less 60 s.
  sync_checkpoint: '2026-07-18T12:39:00.305Z',
  completed_at: EXPORT_READY_AT,
  expires_at: '2026-07-19T12:40:07.342Z',
  failure_reason: null,
  livemode: true,
  created_at: EXPORT_CREATED_AT,
  updated_at: EXPORT_READY_AT,
};

const priya: Attendee = {
  id: PRIYA_ATTENDEE_ID,
  ticket_id: PRIYA_TICKET_ID,
  order_id: ORDER_ID,
  event_id: EVENT_ID,
  first_name: 'Priya',
  last_name: 'Shah',
  email: 'priya.shah@example.com',
  company: null,
  answers: [{ question: 'Any access requirements?', answer: 'None' }],
  checked_in: true,
  livemode: true,
  created_at: ORDER_PLACED_AT,
  updated_at: ADMITTED_AT,
};

/** The holder of the order's other ticket: not checked in yet. */
const tom: Attendee = {
  ...priya,
  id: TOM_ATTENDEE_ID,
  ticket_id: TOM_TICKET_ID,
  first_name: 'Tom',
  last_name: 'Okafor',
  email: 'tom.okafor@example.com',
  company: 'Brunel Print Works',
  answers: [{ question: 'Any access requirements?', answer: 'Step-free access, please' }],
  checked_in: false,
  updated_at: ORDER_PLACED_AT,
};

/** Priya's entry at the north gate, 48 seconds after the doors opened. */
const checkin: Checkin = {
  id: CHECKIN_ID,
  ticket_id: PRIYA_TICKET_ID,
  attendee_id: PRIYA_ATTENDEE_ID,
  event_id: EVENT_ID,
  direction: 'entry',
  gate: 'North gate',
  device_id: 'scanner-03',
  scanned_at: ADMITTED_AT,
  api_key_id: DOOR_KEY_ID,
  livemode: true,
  created_at: ADMITTED_AT,
  updated_at: ADMITTED_AT,
};

/** June's sales, less the platform's 3% and one refunded pair of general admission tickets. */
const payout: Payout = {
  id: PAYOUT_ID,
  event_id: EVENT_ID,
  gross_amount: 1_863_000,
  fees_amount: 55_890,
  refunds_amount: 9000,
  amount: 1_798_110,
  currency: 'GBP',
  status: 'paid',
  period_start: '2026-06-01T00:00:00.000Z',
  period_end: '2026-07-01T00:00:00.000Z',
  arrival_date: '2026-07-06',
  paid_at: '2026-07-06T08:31:12.450Z',
  failure_reason: null,
  livemode: true,
  created_at: '2026-07-01T02:00:05.118Z',
  updated_at: '2026-07-06T08:31:12.450Z',
};

/** The organisation's CRM, told of check-ins too since July: see `webhookEndpoints.update`. */
const crmEndpoint: WebhookEndpoint = {
  id: CRM_ENDPOINT_ID,
  url: 'https://crm.harbourlights.example/hooks/boxoffice',
  description: 'CRM: buyers and attendees',
  events: [...CRM_EVENTS, 'checkin.created'],
  status: 'enabled',
  disabled_reason: null,
  livemode: true,
  created_at: '2026-04-08T11:26:37.044Z',
  updated_at: '2026-07-10T16:10:03.912Z',
};

/** The screens at the entrance, which count admissions; removed after the festival. */
const doorEndpoint: WebhookEndpoint = {
  id: DOOR_ENDPOINT_ID,
  url: 'https://door-display.harbourlights.example/webhooks',
  description: 'Entrance screens: live admissions count',
  events: ['checkin.created'],
  status: 'enabled',
  disabled_reason: null,
  livemode: true,
  created_at: '2026-07-16T15:48:12.581Z',
  updated_at: '2026-07-16T15:48:12.581Z',
};

// ---------------------------------------------------------------------------
// The test helpers' world: the same organisation's test data (`livemode: false`), a sample event
// of which a developer buys two tickets to try the door app, refunds them, and fails a payout.

const TEST_EVENT_ID = 'evt_0VO6hgNzW7v6dSeIA4IXb4Jb';
const TEST_TIER_ID = 'tier_0VO6hn6Uu0Nv8bVo1WwB5I9Q';
const TEST_ORDER_ID = 'ord_0VOxdvwQrx9aTrdm2iJejkwQ';
const TEST_ORDER_PLACED_AT = '2026-07-10T09:30:12.418Z';
const TEST_ORDER_REFUNDED_AT = '2026-07-10T09:41:03.775Z';
const testBuyer = { first_name: 'Test', last_name: 'Buyer', email: 'test.buyer@example.com' };

const testTickets: Ticket[] = [
  ['tkt_0VOxdvwQWtgZXO8pyectdG62', 'att_0VOxdvwQSa3z43OZFk5E19Kt', 'jj2H4ZqyHkLQRWkmkFP9Ffzw'],
  ['tkt_0VOxdvwQjKxATb502C5SS55Z', 'att_0VOxdvwQfNJn9Tx8SB5we9EZ', 'cKuZFpA8w4uA0NnwCPDkbmJd'],
].map(([id = '', attendeeId = '', code = '']) => ({
  id,
  order_id: TEST_ORDER_ID,
  event_id: TEST_EVENT_ID,
  tier_id: TEST_TIER_ID,
  attendee_id: attendeeId,
  code,
  status: 'valid',
  price: 2500,
  currency: 'GBP',
  checked_in_at: null,
  voided_at: null,
  livemode: false,
  created_at: TEST_ORDER_PLACED_AT,
  updated_at: TEST_ORDER_PLACED_AT,
}));

const testOrder: TestOrder = {
  id: TEST_ORDER_ID,
  reference: 'BX-T4QW2M',
  event_id: TEST_EVENT_ID,
  buyer_name: 'Test Buyer',
  buyer_email: testBuyer.email,
  status: 'completed',
  subtotal: 5000,
  fees: 284,
  total: 5284,
  refunded_amount: 0,
  currency: 'GBP',
  ticket_count: 2,
  placed_at: TEST_ORDER_PLACED_AT,
  paid_at: TEST_ORDER_PLACED_AT,
  cancelled_at: null,
  livemode: false,
  created_at: TEST_ORDER_PLACED_AT,
  updated_at: TEST_ORDER_PLACED_AT,
  tickets: testTickets,
  attendees: testTickets.map((ticket): Attendee => ({
    id: ticket.attendee_id,
    ticket_id: ticket.id,
    order_id: TEST_ORDER_ID,
    event_id: TEST_EVENT_ID,
    ...testBuyer,
    company: null,
    answers: [],
    checked_in: false,
    livemode: false,
    created_at: TEST_ORDER_PLACED_AT,
    updated_at: TEST_ORDER_PLACED_AT,
  })),
};

const { tickets: _tickets, attendees: _attendees, ...testOrderAlone } = testOrder;

/** A sample payout of the test data, on its way since the morning, which the bank returns. */
const testPayout: Payout = {
  id: 'po_0VOZOuaXNMij91KVqNsFCDsN',
  event_id: TEST_EVENT_ID,
  gross_amount: 84_000,
  fees_amount: 2_520,
  refunds_amount: 0,
  amount: 81_480,
  currency: 'GBP',
  status: 'failed',
  period_start: '2026-06-01T00:00:00.000Z',
  period_end: '2026-07-01T00:00:00.000Z',
  arrival_date: '2026-07-12',
  paid_at: null,
  failure_reason: 'The bank returned the payout.',
  livemode: false,
  created_at: '2026-07-06T06:00:00.233Z',
  updated_at: '2026-07-10T09:44:51.062Z',
};

// ---------------------------------------------------------------------------
// Operations.

/** A list page holding all its matches: no next page. */
const wholeList = <T>(data: readonly T[], limit = 20) => ({
  data,
  total: data.length,
  page: 1,
  limit,
  next_cursor: null,
  sync_checkpoint: SYNC_CHECKPOINT,
});

const checkinAnswer = { data: checkin };
const atTheNorthGate = { event_id: EVENT_ID, gate: 'North gate', device_id: 'scanner-03' };

/** One example per operation of the contract: see `OperationExample`. */
export const operationExamples: Readonly<Record<OperationKey, OperationExample>> = {
  'events.list': {
    summary: 'Published events: `status=published`',
    response: wholeList([event]),
  },
  'events.get': { response: { data: event } },
  'events.create': {
    requests: {
      draft: {
        summary: 'A draft event, with local times',
        value: {
          name: 'Harbour Lights Festival',
          description: event.description,
          venue: event.venue,
          timezone: 'Europe/London',
          starts_at: '2026-07-18T14:00:00+01:00',
          ends_at: '2026-07-18T22:30:00+01:00',
          doors_open_at: '2026-07-18T13:00:00+01:00',
          currency: 'GBP',
          capacity: 2500,
        } satisfies EventCreate,
      },
    },
    response: {
      data: {
        ...event,
        status: 'draft',
        published_at: null,
        updated_at: EVENT_CREATED_AT,
      } satisfies Event,
    },
  },
  'events.update': {
    requests: {
      publish: {
        summary: 'Publish a draft event',
        value: { status: 'published' } satisfies EventUpdate,
      },
    },
    response: { data: event },
  },

  'tiers.list': {
    summary: 'The tiers of one event, in display order: `event_id=evt_0VBkyNxoE0MOYTHvx6bk342X`',
    response: wholeList([generalTier, deckTier]),
  },
  'tiers.get': { response: { data: generalTier } },
  'tiers.create': {
    requests: {
      generalAdmission: {
        summary: 'A tier of 2,000 tickets at £45.00, at most 6 per order',
        value: {
          event_id: EVENT_ID,
          name: 'General admission',
          description: generalTier.description,
          price: 4500,
          quantity_total: 2000,
          max_per_order: 6,
        } satisfies TierCreate,
      },
    },
    response: {
      data: {
        ...generalTier,
        quantity_sold: 0,
        quantity_available: 2000,
        updated_at: generalTier.created_at,
      } satisfies Tier,
    },
  },
  'tiers.update': {
    requests: {
      moreSeats: {
        summary: 'Release 30 more seats on a sold-out tier: it goes back on sale',
        value: { quantity_total: 180 } satisfies TierUpdate,
      },
    },
    response: { data: deckTier },
  },

  'orders.list': {
    summary: 'The orders of one buyer: `email=priya.shah@example.com`',
    response: wholeList([order]),
  },
  'orders.get': { response: { data: order } },

  'tickets.list': {
    summary: 'The tickets of one order: `order_id=ord_0VJcaviD05z2c3SumECyXP8u`',
    response: wholeList([priyaTicket, tomTicket]),
  },
  'tickets.get': { response: { data: priyaTicket } },

  'attendees.list': {
    summary: 'The attendees of one order: `order_id=ord_0VJcaviD05z2c3SumECyXP8u`',
    response: wholeList([priya, tom]),
  },
  'attendees.get': { response: { data: priya } },

  'checkins.list': {
    summary:
      "A door app's sync, first page: `event_id=evt_0VBkyNxoE0MOYTHvx6bk342X&since=2026-07-18T11:00:00Z&limit=1`; send `next_cursor` back as `cursor` for the next",
    response: {
      data: [checkin],
      total: 812,
      page: 1,
      limit: 1,
      next_cursor:
        'eyJ2IjoxLCJhIjpbIjIwMjYtMDctMThUMTI6MDA6NDguMjE1MDAwKzAwOjAwIiwiY2hrXzBWUGoyM0dCTURCUW1FRTFleGZmazA3SSJdLCJwIjoyLCJ0Ijo4MTIsInMiOjE3ODQzODE0MDQ2MTEsImYiOiJOMHZ4MlJtcHFMT3pkd2hNIn0.sXT4wjrD_GCJeRKue68Jyg',
      sync_checkpoint: SYNC_CHECKPOINT,
    },
  },
  'checkins.get': { response: { data: checkin } },
  'checkins.create': {
    requests: {
      byTicketId: {
        summary: 'Admit a ticket by its id',
        value: { ticket_id: PRIYA_TICKET_ID, ...atTheNorthGate } satisfies CheckinCreate,
      },
      byCode: {
        summary: 'Admit a ticket by its scanned barcode',
        value: {
          code: priyaTicket.code,
          direction: 'entry',
          ...atTheNorthGate,
        } satisfies CheckinCreate,
      },
    },
    response: checkinAnswer,
  },
  'checkins.createBatch': {
    requests: {
      doorScans: {
        summary:
          'A busy door sends its last scans: a ticket admitted, scanned again, and a barcode of no ticket here',
        value: {
          checkins: [
            { code: priyaTicket.code, ...atTheNorthGate, idempotency_key: 'scanner-03:4711' },
            { code: priyaTicket.code, ...atTheNorthGate, idempotency_key: 'scanner-03:4712' },
            {
              code: 'Tq7Bn0xWc4LfR2sPz9KdM1vY',
              ...atTheNorthGate,
              idempotency_key: 'scanner-03:4713',
            },
          ],
        } satisfies CheckinBatchCreate,
      },
    },
    response: {
      data: [
        { status: 201, data: checkin, replayed: false },
        {
          status: 409,
          data: null,
          error: `ticket already checked in at ${ADMITTED_AT}`,
          code: 'already_checked_in',
          admission: checkin,
          replayed: false,
        },
        {
          status: 404,
          data: null,
          error: 'ticket not found',
          code: 'not_found',
          replayed: false,
        },
      ] satisfies CheckinBatchResult[],
    },
  },

  'exports.create': {
    requests: {
      tickets: {
        summary: "Every ticket of the festival, as NDJSON (the list's `event_id` filter)",
        value: {
          resource: 'tickets',
          filters: { event_id: EVENT_ID },
          format: 'ndjson',
        } satisfies ExportCreate,
      },
    },
    response: {
      data: {
        ...ticketExport,
        status: 'pending',
        row_count: null,
        size_bytes: null,
        sync_checkpoint: null,
        completed_at: null,
        expires_at: null,
        updated_at: EXPORT_CREATED_AT,
      } satisfies Export,
    },
  },
  'exports.list': {
    summary: 'Ready exports: `status=ready`',
    response: wholeList([ticketExport]),
  },
  'exports.get': { response: { data: ticketExport } },
  'exports.file': {
    summary: 'The file of the tickets export: one ticket per line',
    response: ticketFile,
  },

  'payouts.list': {
    summary: "An event's paid payouts: `event_id=evt_0VBkyNxoE0MOYTHvx6bk342X&status=paid`",
    response: wholeList([payout]),
  },
  'payouts.get': { response: { data: payout } },

  'webhookEndpoints.list': {
    response: { data: [crmEndpoint, doorEndpoint], total: 2, page: 1, limit: 20 },
  },
  'webhookEndpoints.get': { response: { data: crmEndpoint } },
  'webhookEndpoints.create': {
    requests: {
      crm: {
        summary: 'Send orders and attendees to a CRM',
        value: {
          url: crmEndpoint.url,
          events: [...CRM_EVENTS],
          description: crmEndpoint.description,
        } satisfies WebhookEndpointCreate,
      },
    },
    response: {
      data: {
        ...crmEndpoint,
        events: [...CRM_EVENTS],
        updated_at: crmEndpoint.created_at,
        secret: 'whsec_beyY5hkizQdQZB8It33bljU9F8ewhGhq5hL14lbMmVM=',
      } satisfies WebhookEndpointWithSecret,
    },
  },
  'webhookEndpoints.update': {
    requests: {
      addCheckins: {
        summary: 'Receive check-ins too: `events` replaces the list',
        value: { events: [...CRM_EVENTS, 'checkin.created'] } satisfies WebhookEndpointUpdate,
      },
    },
    response: { data: crmEndpoint },
  },
  'webhookEndpoints.delete': {
    summary: 'Remove the entrance screens’ endpoint after the festival',
    response: { data: { id: DOOR_ENDPOINT_ID, deleted: true } },
  },

  'testHelpers.createOrder': {
    requests: {
      twoTickets: {
        summary: 'Two tickets of a sample event, for the test buyer',
        value: {
          event_id: TEST_EVENT_ID,
          tier_id: TEST_TIER_ID,
          quantity: 2,
        } satisfies TestOrderCreate,
      },
    },
    response: { data: testOrder },
  },
  'testHelpers.refundOrder': {
    summary: 'Refund the test order: its tickets are void now',
    response: {
      data: {
        ...testOrderAlone,
        status: 'refunded',
        refunded_amount: testOrder.total,
        cancelled_at: TEST_ORDER_REFUNDED_AT,
        updated_at: TEST_ORDER_REFUNDED_AT,
      } satisfies Order,
    },
  },
  'testHelpers.advancePayout': {
    requests: {
      fail: {
        summary: 'The bank returns a payout in transit (without a body, it would be paid)',
        value: { fail: true } satisfies TestPayoutAdvance,
      },
    },
    response: { data: testPayout },
  },
  'testHelpers.reset': {
    summary: 'Start the test data again',
    response: {
      data: {
        events: 3,
        tiers: 8,
        orders: 57,
        tickets: 131,
        attendees: 131,
        checkins: 74,
        payouts: 4,
      } satisfies TestDataReset,
    },
  },
};

// ---------------------------------------------------------------------------
// Errors: the messages are the server's own, about the objects above where they name one.

const error = (status: number, code: string, message: string): ErrorExample => ({
  status,
  body: { error: message, code },
});

/**
 * One example per error code of the public API (the table "Status codes and error codes" in
 * docs/api.md), keyed by code.
 */
export const errorExamples: Readonly<Record<string, ErrorExample>> = {
  // What `POST /events` answers for `starts_at: "2026-07-18 14:00"` and `currency: "gbp"`.
  validation_failed: {
    status: 400,
    body: {
      error: 'starts_at must be an ISO-8601 timestamp with a time zone, e.g. 2026-06-01T19:00:00Z',
      code: 'validation_failed',
      details: [
        {
          field: 'starts_at',
          message:
            'starts_at must be an ISO-8601 timestamp with a time zone, e.g. 2026-06-01T19:00:00Z',
        },
        {
          field: 'currency',
          message: 'currency must be a three-letter upper-case ISO 4217 code, e.g. EUR',
        },
      ],
    },
  },
  malformed_json: error(400, 'malformed_json', 'request body is not valid JSON'),
  unsupported_content_type: error(
    400,
    'unsupported_content_type',
    'Content-Type must be application/json',
  ),
  unsupported_encoding: error(
    400,
    'unsupported_encoding',
    'request body must be UTF-8 encoded JSON',
  ),
  invalid_encoding: error(400, 'invalid_encoding', 'request body is not valid UTF-8'),
  invalid_cursor: error(
    400,
    'invalid_cursor',
    'cursor is not a next_cursor of this list: send the next_cursor of an earlier page unchanged',
  ),
  cursor_filters_mismatch: error(
    400,
    'cursor_filters_mismatch',
    'cursor was issued for other filters: send the same filters as the request that returned it',
  ),
  invalid_request: error(400, 'invalid_request', 'ends_at must be after starts_at'),
  invalid_idempotency_key: error(
    400,
    'invalid_idempotency_key',
    'Idempotency-Key must be between 1 and 255 characters',
  ),
  body_too_deep: error(
    400,
    'body_too_deep',
    'request body nests arrays or objects more than 32 levels deep',
  ),
  malformed_request: error(400, 'malformed_request', 'the request is not valid HTTP/1.1'),
  invalid_path: error(400, 'invalid_path', 'the request path is not valid URL encoding'),
  missing_api_key: error(
    401,
    'missing_api_key',
    "No API key provided. Send it in the Authorization header: 'Authorization: Bearer bxo_live_…' (or 'bxo_test_…' for test mode).",
  ),
  malformed_authorization: error(
    401,
    'malformed_authorization',
    "The Authorization header uses the Basic scheme; send the API key as 'Authorization: Bearer bxo_live_…' (or bxo_test_…).",
  ),
  invalid_api_key: error(
    401,
    'invalid_api_key',
    'Invalid API key provided: bxo_live_…a1B2. Check that the whole key was copied, or create a new one in the dashboard (Settings → API keys).',
  ),
  revoked_api_key: error(
    401,
    'revoked_api_key',
    'This API key (bxo_live_…a1B2) was revoked on 2026-05-28T09:12:44.000Z; create a new one in the dashboard (Settings → API keys).',
  ),
  plan_required: error(
    402,
    'plan_required',
    'API access requires the Pro plan. Upgrade in the dashboard under Settings → Plan.',
  ),
  // The door scanners' key is read-only apart from check-ins.
  missing_scope: error(403, 'missing_scope', "This API key lacks the 'write' scope"),
  test_mode_only: error(
    403,
    'test_mode_only',
    'This endpoint works in test mode only: call it with a test key (bxo_test_…); a live key (bxo_live_…) never changes data through it.',
  ),
  invalid_quantity: error(400, 'invalid_quantity', 'quantity must be an integer between 1 and 20'),
  not_found: error(404, 'not_found', 'event not found'),
  route_not_found: error(404, 'route_not_found', 'route not found: GET /api/v1/venues'),
  method_not_allowed: error(
    405,
    'method_not_allowed',
    'method not allowed: DELETE /api/v1/events (allowed: GET, POST)',
  ),
  request_timeout: error(408, 'request_timeout', 'the request took too long to arrive'),
  illegal_transition: error(
    409,
    'illegal_transition',
    'event status cannot change from published to draft',
  ),
  event_final: error(409, 'event_final', 'a completed event cannot be changed'),
  currency_locked: error(
    409,
    'currency_locked',
    'currency cannot change once the event has ticket tiers',
  ),
  quantity_below_sold: error(
    409,
    'quantity_below_sold',
    `quantity_total cannot be lowered below the ${generalTier.quantity_sold} tickets already sold`,
  ),
  ticket_void: error(409, 'ticket_void', 'ticket is void'),
  already_checked_in: error(
    409,
    'already_checked_in',
    `ticket already checked in at ${ADMITTED_AT}`,
  ),
  not_checked_in: error(409, 'not_checked_in', 'ticket is not checked in, so it cannot exit'),
  idempotency_in_flight: error(
    409,
    'idempotency_in_flight',
    'A request with this Idempotency-Key is still in progress; retry shortly',
  ),
  event_not_on_sale: error(
    409,
    'event_not_on_sale',
    'orders can only be placed for published events, not draft ones',
  ),
  tier_not_on_sale: error(409, 'tier_not_on_sale', 'sales of this ticket tier are paused'),
  sold_out: error(409, 'sold_out', 'only 2 tickets are left in this tier'),
  order_refunded: error(409, 'order_refunded', 'the order is already refunded'),
  order_cancelled: error(
    409,
    'order_cancelled',
    'the order was cancelled: nothing was paid to refund',
  ),
  order_not_paid: error(409, 'order_not_paid', 'the order is not paid yet: nothing to refund'),
  payout_final: error(409, 'payout_final', 'the payout is already paid; it cannot change'),
  test_data_busy: error(
    409,
    'test_data_busy',
    'the test data is being made or reset right now; try again in a few seconds',
  ),
  endpoint_limit_reached: error(
    409,
    'endpoint_limit_reached',
    'an organisation has at most 20 webhook endpoints; delete one first',
  ),
  too_many_exports: error(
    409,
    'too_many_exports',
    'At most 3 exports may be pending or running at once; wait for one to finish.',
  ),
  export_not_ready: error(
    409,
    'export_not_ready',
    `export ${EXPORT_ID} is running: its file is not ready yet; poll the export until its status is ready`,
  ),
  export_expired: error(
    410,
    'export_expired',
    `The file of export ${EXPORT_ID} was removed after its retention; make a new export.`,
  ),
  range_not_satisfiable: error(
    416,
    'range_not_satisfiable',
    'The range bytes=9000- starts past the end of the file (710 bytes).',
  ),
  body_too_large: error(
    413,
    'body_too_large',
    'request body is larger than the limit of 102400 bytes',
  ),
  unknown_event: error(
    422,
    'unknown_event',
    'event_id evt_0VDXmy0A4MJ1qcIEE7d2hyEI does not refer to an event',
  ),
  unknown_tier: error(
    422,
    'unknown_tier',
    'ticket tier tier_0VDXn5lQ2bTKwWc8sYhP4aRu does not exist',
  ),
  wrong_event: error(422, 'wrong_event', 'ticket is for a different event'),
  max_per_order_exceeded: error(
    422,
    'max_per_order_exceeded',
    'at most 6 tickets of this tier may be in one order',
  ),
  idempotency_key_reused: error(
    422,
    'idempotency_key_reused',
    'Idempotency-Key has already been used with a different request',
  ),
  invalid_webhook_url: error(
    422,
    'invalid_webhook_url',
    'url must not point to a non-public address: 10.0.0.8 is private (10.0.0.0/8). Loopback and private receivers are accepted only when the server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true (local development)',
  ),
  rate_limited: error(
    429,
    'rate_limited',
    'Rate limit exceeded: 10 write requests per minute. Retry after 17 s.',
  ),
  too_many_failed_authentications: error(
    429,
    'too_many_failed_authentications',
    'Too many requests with a missing or invalid API key from this address (at most 30 in a minute). Retry after 42 s.',
  ),
  expectation_failed: error(
    417,
    'expectation_failed',
    'the Expect header can only be 100-continue',
  ),
  headers_too_large: error(
    431,
    'headers_too_large',
    'request line and headers are larger than the server accepts',
  ),
  internal_error: {
    status: 500,
    body: {
      error: 'Internal server error',
      code: 'internal_error',
      request_id: 'req_61aeace6c3984ae59b016799e8ca747d',
    },
  },
  service_unavailable: error(503, 'service_unavailable', 'Service temporarily unavailable'),
};
