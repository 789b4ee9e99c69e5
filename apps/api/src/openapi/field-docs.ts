// Generated from @boxoffice/contract by scripts/generate-field-docs.mjs: do not edit, run
// `pnpm generate` after changing the contract.

const PaginationQuerySchema = {
  page: 'The page to start at, from 1 (1 when absent). Not with `cursor`.',
  limit: 'Items per page, 1–100 (default 20).',
  cursor:
    'The `next_cursor` of an earlier page: continues that walk, with the same filters, after its last item. Not with `page`.',
};
const OrderSchema = {
  status:
    "`pending`, `completed`, `cancelled` or `refunded`; cancelling or refunding voids the order's tickets.",
  event_id: 'The event the order is for, `evt_…`.',
  id: "The order's id, `ord_…`.",
  livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
  created_at: 'When it was created (ISO-8601, UTC).',
  updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
  currency: 'The ISO 4217 currency of the amounts.',
  cancelled_at: 'When the order was cancelled (ISO-8601, UTC), or `null`.',
  reference: 'The reference the buyer sees, e.g. `BX-7K3Q9P`.',
  buyer_name: "The buyer's name.",
  buyer_email: "The buyer's email address.",
  subtotal: "The tickets' prices, in minor units of `currency`.",
  fees: 'Booking fees, in minor units.',
  total: '`subtotal + fees`, in minor units: what the buyer paid.',
  refunded_amount: 'What has been refunded, in minor units.',
  ticket_count: 'How many tickets the order has.',
  placed_at: 'When the buyer placed the order (ISO-8601, UTC).',
  paid_at: 'When payment was received (ISO-8601, UTC), or `null`.',
};
const WebhookEndpointSchema = {
  status: '`enabled`, or `disabled` (nothing is sent).',
  id: "The endpoint's id, `we_…`.",
  livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
  created_at: 'When the endpoint was registered.',
  updated_at: 'When the endpoint was last changed.',
  description: "A note of the organisation's on what the endpoint is for.",
  events: 'The event types sent to it, or `["*"]` for every type.',
  url: 'Where changes are sent: an https URL that accepts POST requests.',
  disabled_reason:
    'Why the endpoint is disabled: by request, or after failing for about three days.',
};
const CheckinCreateSchema = {
  code: 'The ticket, by its scanned barcode secret. Give exactly one of `ticket_id` and `code`.',
  event_id:
    "The door's event (`evt_…`): a ticket of another event is then a 422 instead of admitted.",
  ticket_id: 'The ticket, by id (`tkt_…`). Give exactly one of `ticket_id` and `code`.',
  direction: '`entry` (the default) admits a valid ticket; `exit` lets a checked-in one out.',
  gate: 'The gate, 1–100 characters (trimmed).',
  device_id: 'The scanner, 1–100 characters (trimmed).',
  scanned_at:
    'When the door scanned (ISO-8601 with an offset), for scans sent late; defaults to when the server receives it.',
};

/** The contract's JSDoc by schema (its export name) and field (`a.b` for a nested one). */
export const FIELD_DOCS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AttendeeAnswerSchema: {
    question: 'The question asked at checkout.',
    answer: "The attendee's answer.",
  },
  AttendeeExportFiltersSchema: {
    event_id: 'Only the items of this event (`evt_…`).',
    order_id: 'Only the attendees of this order (`ord_…`).',
    ticket_id: 'Only the attendee of this ticket (`tkt_…`).',
    email: 'Only attendees with this email address, ignoring case.',
    checked_in: 'Only attendees inside (`true`) or not inside (`false`) now.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  AttendeeListQuerySchema: {
    ...PaginationQuerySchema,
    event_id: 'Only the items of this event (`evt_…`).',
    order_id: 'Only the attendees of this order (`ord_…`).',
    ticket_id: 'Only the attendee of this ticket (`tkt_…`).',
    email: 'Only attendees with this email address, ignoring case.',
    checked_in: 'Only attendees inside (`true`) or not inside (`false`) now.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  AttendeeSchema: {
    event_id: 'The event, `evt_…`.',
    order_id: 'The order their ticket was bought in, `ord_…`.',
    ticket_id: 'Their ticket, `tkt_…`.',
    email: 'Email address, or `null`.',
    checked_in:
      'Whether their ticket is checked in now (it changes with each check-in, with `updated_at`).',
    id: "The attendee's id, `att_…`.",
    first_name: 'First name, as given at checkout.',
    last_name: 'Last name, as given at checkout.',
    company: 'Company, or `null`.',
    answers: "Their answers to the checkout's questions, in order.",
    'answers.question': 'The question asked at checkout.',
    'answers.answer': "The attendee's answer.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
  },
  CheckinBatchCreateSchema: {
    checkins: '1–100 scans, applied in this order, each on its own.',
    'checkins.code':
      'The ticket, by its scanned barcode secret. Give exactly one of `ticket_id` and `code`.',
    'checkins.event_id':
      "The door's event (`evt_…`): a ticket of another event is then a 422 instead of admitted.",
    'checkins.ticket_id':
      'The ticket, by id (`tkt_…`). Give exactly one of `ticket_id` and `code`.',
    'checkins.direction':
      '`entry` (the default) admits a valid ticket; `exit` lets a checked-in one out.',
    'checkins.gate': 'The gate, 1–100 characters (trimmed).',
    'checkins.device_id': 'The scanner, 1–100 characters (trimmed).',
    'checkins.scanned_at':
      'When the door scanned (ISO-8601 with an offset), for scans sent late; defaults to when the server receives it.',
    'checkins.idempotency_key':
      "The scan's own idempotency key, 1–255 characters, unique per scan (a door makes one when it scans): a batch re-sent after a lost answer gives this item the answer it had the first time (whatever it was) instead of recording it again. Keys belong to the API key, apart from `Idempotency-Key` headers.",
  },
  CheckinBatchItemSchema: {
    ...CheckinCreateSchema,
    idempotency_key:
      "The scan's own idempotency key, 1–255 characters, unique per scan (a door makes one when it scans): a batch re-sent after a lost answer gives this item the answer it had the first time (whatever it was) instead of recording it again. Keys belong to the API key, apart from `Idempotency-Key` headers.",
  },
  CheckinBatchResultSchema: {
    status:
      "`201` recorded; `404` no such ticket; `409` refused by the ticket's state (`code` says which: `already_checked_in`, `ticket_void`, `not_checked_in`), or the scan's `idempotency_key` in use by a request still running (`idempotency_in_flight`); `422` a ticket of another event (`wrong_event`), or an `idempotency_key` used before with another scan (`idempotency_key_reused`).",
    data: 'The check-in recorded (with a 201), else `null`.',
    'data.event_id': "The ticket's event, `evt_…`.",
    'data.ticket_id': 'The ticket scanned, `tkt_…`.',
    'data.id': "The check-in's id, `chk_…`.",
    'data.livemode':
      '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    'data.created_at': 'When the server received it (ISO-8601, UTC); `since` filters on it.',
    'data.updated_at': 'Equal to `created_at`: check-ins never change.',
    'data.direction': '`entry` (admitted) or `exit` (let out).',
    'data.gate': 'The gate it was scanned at, or `null`.',
    'data.device_id': 'The scanner that sent it, or `null`.',
    'data.scanned_at':
      'When the door scanned it (ISO-8601, UTC); the time the server received it, unless the scanner said.',
    'data.attendee_id': "The ticket's attendee, `att_…`.",
    'data.api_key_id': 'The API key that recorded it, or `null`. Set by the server.',
    replayed:
      "`true` when the item's `idempotency_key` was seen before and this is that first answer.",
    code: 'The kind of refusal, for programs (`already_checked_in`, …); absent with a 201.',
    error: 'Why it was refused, for people; absent with a 201.',
    admission:
      'With `already_checked_in`: the check-in that admitted the ticket (its `scanned_at`, `gate` and `device_id` say when and where), so the door can say so.',
    'admission.event_id': "The ticket's event, `evt_…`.",
    'admission.ticket_id': 'The ticket scanned, `tkt_…`.',
    'admission.id': "The check-in's id, `chk_…`.",
    'admission.livemode':
      '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    'admission.created_at': 'When the server received it (ISO-8601, UTC); `since` filters on it.',
    'admission.updated_at': 'Equal to `created_at`: check-ins never change.',
    'admission.direction': '`entry` (admitted) or `exit` (let out).',
    'admission.gate': 'The gate it was scanned at, or `null`.',
    'admission.device_id': 'The scanner that sent it, or `null`.',
    'admission.scanned_at':
      'When the door scanned it (ISO-8601, UTC); the time the server received it, unless the scanner said.',
    'admission.attendee_id': "The ticket's attendee, `att_…`.",
    'admission.api_key_id': 'The API key that recorded it, or `null`. Set by the server.',
  },
  CheckinCreateSchema,
  CheckinExportFiltersSchema: {
    event_id: 'Only the items of this event (`evt_…`).',
    ticket_id: 'Only the check-ins of this ticket (`tkt_…`).',
    direction: 'Only `entry` or only `exit` check-ins (or an array of both).',
    gate: 'Only the check-ins at this gate.',
    since:
      'Only check-ins the server received at or after this time (ISO-8601 or a `Date`): for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  CheckinListQuerySchema: {
    ...PaginationQuerySchema,
    event_id: 'Only the items of this event (`evt_…`).',
    ticket_id: 'Only the check-ins of this ticket (`tkt_…`).',
    direction: 'Only `entry` or only `exit` check-ins (or an array of both).',
    gate: 'Only the check-ins at this gate.',
    since:
      'Only check-ins the server received at or after this time (ISO-8601 or a `Date`): for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  CheckinSchema: {
    event_id: "The ticket's event, `evt_…`.",
    ticket_id: 'The ticket scanned, `tkt_…`.',
    id: "The check-in's id, `chk_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When the server received it (ISO-8601, UTC); `since` filters on it.',
    updated_at: 'Equal to `created_at`: check-ins never change.',
    direction: '`entry` (admitted) or `exit` (let out).',
    gate: 'The gate it was scanned at, or `null`.',
    device_id: 'The scanner that sent it, or `null`.',
    scanned_at:
      'When the door scanned it (ISO-8601, UTC); the time the server received it, unless the scanner said.',
    attendee_id: "The ticket's attendee, `att_…`.",
    api_key_id: 'The API key that recorded it, or `null`. Set by the server.',
  },
  DeletedSchema: { id: 'The id of the object deleted.', deleted: 'Always `true`.' },
  ErrorDetailSchema: {
    message: 'What is wrong with it, naming it.',
    field:
      'The field or query parameter, dotted for nested fields (`events.0`); empty for the whole body.',
  },
  ErrorSchema: {
    error: 'What went wrong, for people: it names the field or object involved.',
    code: 'The kind of error, stable and meant for programs, e.g. `already_checked_in`.',
    request_id: "The request's id, on a 500: quote it when reporting the problem.",
    details:
      'With `validation_failed`: each value refused (at most 10), the first one as in `error`.',
    'details.message': 'What is wrong with it, naming it.',
    'details.field':
      'The field or query parameter, dotted for nested fields (`events.0`); empty for the whole body.',
  },
  EventCreateSchema: {
    name: "The event's name, 1–200 characters (trimmed).",
    timezone: 'An IANA time zone name, e.g. `Europe/London` (any case; stored canonical).',
    starts_at: 'When the event starts: ISO-8601 with an offset, e.g. `2026-06-01T19:00:00+01:00`.',
    ends_at: 'When the event ends: ISO-8601 with an offset; must be after `starts_at`.',
    currency: 'An ISO 4217 code in upper case, e.g. `GBP`; cannot change once the event has tiers.',
    status: '`draft` (the default) or `published`.',
    description: 'Free text about the event, up to 5,000 characters, or `null` (the default).',
    venue: 'Where it takes place, up to 500 characters, or `null` (the default).',
    doors_open_at: 'When the doors open: ISO-8601 with an offset, or `null` (the default).',
    capacity: 'How many people the venue holds (1–10,000,000), or `null` (the default).',
  },
  EventExportFiltersSchema: {
    status: 'Only items in one of these statuses: one, or an array of several.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    starts_after: 'Only events starting at or after this time (ISO-8601 or a `Date`).',
    starts_before: 'Only events starting before this time (ISO-8601 or a `Date`).',
    q: 'Only events whose name contains this text, ignoring case.',
  },
  EventListQuerySchema: {
    ...PaginationQuerySchema,
    status: 'Only items in one of these statuses: one, or an array of several.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    starts_after: 'Only events starting at or after this time (ISO-8601 or a `Date`).',
    starts_before: 'Only events starting before this time (ISO-8601 or a `Date`).',
    q: 'Only events whose name contains this text, ignoring case.',
  },
  EventSchema: {
    status:
      '`draft`, `published`, `completed` or `cancelled`: `draft → published → completed`, or `cancelled` from `draft` or `published`. `completed` and `cancelled` are final.',
    id: "The event's id, `evt_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    description: 'Free text about the event, or `null`.',
    venue: 'Where it takes place, or `null`.',
    doors_open_at: 'When the doors open (ISO-8601, UTC), or `null`.',
    capacity: 'How many people the venue holds, or `null` for no stated limit.',
    name: "The event's name, 1–200 characters.",
    timezone: 'The IANA time zone of the venue, e.g. `Europe/London`: local times are shown in it.',
    starts_at: 'When the event starts (ISO-8601, UTC).',
    ends_at: 'When the event ends (ISO-8601, UTC); always after `starts_at`.',
    currency: "The ISO 4217 currency of its tiers' prices, e.g. `GBP`; fixed once it has tiers.",
    published_at: 'When the event was published, or `null`. Set by the server.',
    cancelled_at: 'When the event was cancelled, or `null`. Set by the server.',
  },
  EventUpdateSchema: {
    status:
      'A new status: `draft → published → completed`, or `cancelled` from `draft` or `published`; any other change is a 409.',
    description: 'Free text about the event, up to 5,000 characters, or `null`.',
    venue: 'Where it takes place, up to 500 characters, or `null`.',
    doors_open_at: 'When the doors open: ISO-8601 with an offset, or `null`.',
    capacity: 'How many people the venue holds (1–10,000,000), or `null`.',
    name: "The event's name, 1–200 characters (trimmed).",
    timezone: 'An IANA time zone name, e.g. `Europe/London` (any case; stored canonical).',
    starts_at: 'When the event starts: ISO-8601 with an offset, e.g. `2026-06-01T19:00:00+01:00`.',
    ends_at: 'When the event ends: ISO-8601 with an offset; must be after `starts_at`.',
    currency: 'An ISO 4217 code in upper case, e.g. `GBP`; cannot change once the event has tiers.',
  },
  ExportListQuerySchema: {
    ...PaginationQuerySchema,
    status: 'Only exports in one of these statuses: one, or an array of several.',
    resource: 'Only exports of these resources: one, or an array of several.',
  },
  ExportSchema: {
    status: '`pending`, `running`, `ready`, `failed` or `expired`.',
    format: '`ndjson` or `csv`.',
    id: "The export's id, `exp_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    resource: 'Which list it copies.',
    filters:
      'The filters it was made with, as the server read them: status lists as arrays, times in UTC, booleans as `true`/`false`; `{}` for none.',
    row_count: 'How many objects the file holds, once `ready` (`null` before).',
    size_bytes: "The file's size in bytes, uncompressed, once `ready` (`null` before).",
    sync_checkpoint:
      "Where the next sync starts, once `ready`: pass it as the list's `updated_since` (`since` for check-ins) to get every change committed after the export's snapshot. A cursor walk begun at the snapshot's moment would give the same.",
    completed_at: 'When it became `ready` or `failed` (ISO-8601, UTC), or `null`.',
    expires_at: 'When the file is removed (ISO-8601, UTC): set once `ready`, else `null`.',
    failure_reason: 'Why it failed, or `null`.',
  },
  OrderExportFiltersSchema: {
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    email: 'Only orders whose buyer has this email address, ignoring case.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    reference: 'Only the order with this reference, exactly.',
  },
  OrderListQuerySchema: {
    ...PaginationQuerySchema,
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    email: 'Only orders whose buyer has this email address, ignoring case.',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    reference: 'Only the order with this reference, exactly.',
  },
  OrderSchema,
  PaginationQuerySchema,
  PayoutExportFiltersSchema: {
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  PayoutListQuerySchema: {
    ...PaginationQuerySchema,
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  PayoutSchema: {
    status:
      '`pending → in_transit → paid`; or `cancelled` (from `pending`), `failed` (from `in_transit`).',
    event_id: 'The event it pays out for, or `null` for several.',
    id: "The payout's id, `po_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    currency: 'The ISO 4217 currency of the amounts.',
    failure_reason: 'Why it failed, or `null`.',
    paid_at: 'When it was paid (ISO-8601, UTC), or `null`.',
    gross_amount: 'Sales in the period, in minor units of `currency`.',
    fees_amount: 'Fees deducted, in minor units.',
    refunds_amount: 'Refunds deducted, in minor units.',
    amount: 'What is paid: `gross_amount - fees_amount - refunds_amount`, in minor units.',
    period_start: 'The start of the sales period it covers (ISO-8601, UTC).',
    period_end: 'The end of the sales period it covers (ISO-8601, UTC).',
    arrival_date: 'The calendar date the money is expected (`YYYY-MM-DD`), or `null`.',
  },
  TestDataResetSchema: {
    checkins: 'Check-ins of the new sample data.',
    events: 'Events of the new sample data.',
    tiers: 'Ticket tiers of the new sample data.',
    orders: 'Orders of the new sample data.',
    tickets: 'Tickets of the new sample data.',
    attendees: 'Attendees of the new sample data.',
    payouts: 'Payouts of the new sample data.',
  },
  TestOrderCreateSchema: {
    event_id: 'The event, `evt_…`: a published one of the test data (an unknown one is a 422).',
    tier_id: 'The ticket tier to sell, `tier_…`, of that event; on sale now.',
    quantity: "How many tickets: 1 to 20, and at most the tier's `max_per_order` and what is left.",
    buyer_name:
      "The buyer's name, 1–200 characters (default `Test Buyer`); the attendee of each ticket.",
    buyer_email: "The buyer's email address (default `test.buyer@example.com`).",
  },
  TestOrderSchema: {
    ...OrderSchema,
    tickets: "The order's tickets, each with its barcode secret (`code`), ready to be checked in.",
    'tickets.code':
      'The barcode secret: 24 random base62 characters. Scan it with `checkins.create({ code })`.',
    'tickets.status':
      '`valid`, `checked_in` (inside now) or `void` (its order was cancelled or refunded).',
    'tickets.event_id': 'The event it admits to, `evt_…`.',
    'tickets.order_id': 'The order it was bought in, `ord_…`.',
    'tickets.id': "The ticket's id, `tkt_…`.",
    'tickets.livemode':
      '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    'tickets.created_at': 'When it was created (ISO-8601, UTC).',
    'tickets.updated_at': 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    'tickets.attendee_id': 'Who holds it, `att_…`.',
    'tickets.currency': 'The ISO 4217 currency of `price`.',
    'tickets.tier_id': 'Its tier, `tier_…`.',
    'tickets.price': 'What it cost, in minor units of `currency`.',
    'tickets.checked_in_at':
      'When the current admission was scanned (ISO-8601, UTC), or `null`; cleared on exit.',
    'tickets.voided_at': 'When it became void (ISO-8601, UTC), or `null`.',
    attendees: "The tickets' attendees, in the order of `tickets`.",
    'attendees.event_id': 'The event, `evt_…`.',
    'attendees.order_id': 'The order their ticket was bought in, `ord_…`.',
    'attendees.ticket_id': 'Their ticket, `tkt_…`.',
    'attendees.email': 'Email address, or `null`.',
    'attendees.checked_in':
      'Whether their ticket is checked in now (it changes with each check-in, with `updated_at`).',
    'attendees.id': "The attendee's id, `att_…`.",
    'attendees.first_name': 'First name, as given at checkout.',
    'attendees.last_name': 'Last name, as given at checkout.',
    'attendees.company': 'Company, or `null`.',
    'attendees.answers': "Their answers to the checkout's questions, in order.",
    'attendees.answers.question': 'The question asked at checkout.',
    'attendees.answers.answer': "The attendee's answer.",
    'attendees.livemode':
      '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    'attendees.created_at': 'When it was created (ISO-8601, UTC).',
    'attendees.updated_at': 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
  },
  TestPayoutAdvanceSchema: {
    fail: '`true` fails the payout instead of paying it (a pending one by way of `in_transit`), with a `failure_reason`. Default `false`.',
  },
  TicketExportFiltersSchema: {
    code: 'Only the ticket with this barcode secret: how a scanned code is looked up.',
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    order_id: 'Only the tickets of this order (`ord_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    tier_id: 'Only the tickets of this tier (`tier_…`).',
  },
  TicketListQuerySchema: {
    ...PaginationQuerySchema,
    code: 'Only the ticket with this barcode secret: how a scanned code is looked up.',
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    order_id: 'Only the tickets of this order (`ord_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
    tier_id: 'Only the tickets of this tier (`tier_…`).',
  },
  TicketSchema: {
    code: 'The barcode secret: 24 random base62 characters. Scan it with `checkins.create({ code })`.',
    status: '`valid`, `checked_in` (inside now) or `void` (its order was cancelled or refunded).',
    event_id: 'The event it admits to, `evt_…`.',
    order_id: 'The order it was bought in, `ord_…`.',
    id: "The ticket's id, `tkt_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    attendee_id: 'Who holds it, `att_…`.',
    currency: 'The ISO 4217 currency of `price`.',
    tier_id: 'Its tier, `tier_…`.',
    price: 'What it cost, in minor units of `currency`.',
    checked_in_at:
      'When the current admission was scanned (ISO-8601, UTC), or `null`; cleared on exit.',
    voided_at: 'When it became void (ISO-8601, UTC), or `null`.',
  },
  TierCreateSchema: {
    event_id: 'The event to add the tier to, `evt_…`; an unknown one is a 422.',
    name: "The tier's name, 1–200 characters (trimmed).",
    price:
      "The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).",
    status: '`on_sale` (the default), `paused` or `hidden`.',
    description: 'Free text about the tier, up to 5,000 characters, or `null` (the default).',
    quantity_total: 'How many tickets the tier has; `null` (the default) for unlimited.',
    max_per_order:
      'The most tickets of this tier one order may have (1–1,000); `null` (the default) for no limit.',
    sales_start_at: 'When sales open: ISO-8601 with an offset; `null` (the default) for at once.',
    sales_end_at:
      'When sales close: ISO-8601 with an offset, after `sales_start_at`; `null` (the default) for none.',
    sort_order: 'Where the tier comes in lists, lowest first; default 0.',
  },
  TierExportFiltersSchema: {
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  TierListQuerySchema: {
    ...PaginationQuerySchema,
    status: 'Only items in one of these statuses: one, or an array of several.',
    event_id: 'Only the items of this event (`evt_…`).',
    updated_since:
      'Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for syncing. Pass the `sync_checkpoint` of the previous walk.',
  },
  TierSchema: {
    status:
      '`on_sale`, `paused`, `hidden` or `sold_out` (shown by the server while an `on_sale` tier has nothing left).',
    event_id: 'The event it sells tickets for, `evt_…`.',
    id: "The tier's id, `tier_…`.",
    livemode: '`true` for live data, `false` for test data (made and read with a `bxo_test_` key).',
    created_at: 'When it was created (ISO-8601, UTC).',
    updated_at: 'When it last changed (ISO-8601, UTC); `updated_since` filters on it.',
    description: 'Free text about the tier, or `null`.',
    name: "The tier's name, e.g. `General admission`.",
    currency: "The event's currency (ISO 4217). Set by the server.",
    price: 'The price of one ticket in minor units of `currency` (2500 is £25.00).',
    quantity_total: 'How many tickets the tier has, or `null` for unlimited.',
    max_per_order: 'The most tickets of this tier one order may have, or `null` for no limit.',
    sales_start_at: 'When sales open (ISO-8601, UTC), or `null` for at once.',
    sales_end_at: 'When sales close (ISO-8601, UTC), or `null` for when the event starts.',
    sort_order: 'Where the tier comes in lists: lowest first, then by id.',
    quantity_sold:
      'How many tickets have been sold (cancelled and refunded orders give theirs back). Set by the server.',
    quantity_available:
      '`quantity_total - quantity_sold`, or `null` when unlimited. Set by the server.',
  },
  TierUpdateSchema: {
    status: "`on_sale`, `paused` or `hidden` (`sold_out` is the server's to set).",
    description: 'Free text about the tier, up to 5,000 characters, or `null`.',
    name: "The tier's name, 1–200 characters (trimmed).",
    price:
      "The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).",
    quantity_total:
      'How many tickets the tier has, or `null` for unlimited; lowering it below `quantity_sold` is a 409.',
    max_per_order:
      'The most tickets of this tier one order may have (1–1,000), or `null` for no limit.',
    sales_start_at: 'When sales open: ISO-8601 with an offset, or `null` for at once.',
    sales_end_at: 'When sales close: ISO-8601 with an offset, after `sales_start_at`; or `null`.',
    sort_order: 'Where the tier comes in lists, lowest first (-1,000,000 to 1,000,000).',
  },
  WebhookEndpointCreateSchema: {
    url: 'An https URL that accepts POST requests.',
    description: 'A note on what the endpoint is for.',
    events: 'Event types to receive, or `["*"]` (the default) for all.',
  },
  WebhookEndpointListQuerySchema: {
    page: 'The page to start at, from 1 (1 when absent). Not with `cursor`.',
    limit: 'Items per page, 1–100 (default 20).',
  },
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema: {
    status: '`disabled` stops the deliveries; `enabled` starts them again.',
    description: 'A new note, or `null` for none.',
    events: 'The event types to receive from now on, or `["*"]` for all.',
    url: 'A new https URL.',
  },
  WebhookEndpointWithSecretSchema: {
    ...WebhookEndpointSchema,
    secret: 'The signing secret (`whsec_…`): shown when the endpoint is created; keep it safe.',
  },
  WebhookEventSchema: {
    type: 'The event type, e.g. `checkin.created`.',
    id: 'The message id, also sent as `webhook-id`: the same on every retry.',
    livemode:
      '`true` for a change of live data, `false` for one of test data (as `data.object.livemode`).',
    created_at: 'When the change was committed (ISO-8601, UTC).',
    data: 'What changed.',
    'data.object': 'The object as the API renders it after the change.',
  },
};
