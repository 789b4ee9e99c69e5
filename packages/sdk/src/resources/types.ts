// Generated from @boxoffice/contract by scripts/generate-types.mjs: do not edit, run
// `pnpm generate` after changing the contract.

/** An event's status. `EventStatusSchema` of @boxoffice/contract. */
export type EventStatus = 'draft' | 'published' | 'completed' | 'cancelled';

/** A ticket tier's status. `TierStatusSchema` of @boxoffice/contract. */
export type TierStatus = 'on_sale' | 'paused' | 'hidden' | 'sold_out';

/** The statuses a client may give a tier. `WritableTierStatusSchema` of @boxoffice/contract. */
export type WritableTierStatus = 'on_sale' | 'paused' | 'hidden';

/** An order's status. `OrderStatusSchema` of @boxoffice/contract. */
export type OrderStatus = 'completed' | 'cancelled' | 'pending' | 'refunded';

/** A ticket's status. `TicketStatusSchema` of @boxoffice/contract. */
export type TicketStatus = 'valid' | 'checked_in' | 'void';

/** Whether a check-in admitted or let out. `CheckinDirectionSchema` of @boxoffice/contract. */
export type CheckinDirection = 'entry' | 'exit';

/** A payout's status. `PayoutStatusSchema` of @boxoffice/contract. */
export type PayoutStatus = 'cancelled' | 'pending' | 'in_transit' | 'paid' | 'failed';

/** A webhook endpoint's status. `WebhookEndpointStatusSchema` of @boxoffice/contract. */
export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** What a webhook endpoint subscribes to: an event type, or `*` for all. `WebhookSubscriptionSchema` of @boxoffice/contract. */
export type WebhookSubscription =
  | 'event.created'
  | 'event.updated'
  | 'tier.created'
  | 'tier.updated'
  | 'order.created'
  | 'order.updated'
  | 'ticket.created'
  | 'ticket.updated'
  | 'attendee.created'
  | 'attendee.updated'
  | 'checkin.created'
  | 'payout.created'
  | 'payout.updated'
  | '*';

/** The lists an export can copy. `ExportResourceSchema` of @boxoffice/contract. */
export type ExportResource =
  'events' | 'tiers' | 'orders' | 'tickets' | 'attendees' | 'checkins' | 'payouts';

/** An export file's format. `ExportFormatSchema` of @boxoffice/contract. */
export type ExportFormat = 'ndjson' | 'csv';

/** An export's status. `ExportStatusSchema` of @boxoffice/contract. */
export type ExportStatus = 'pending' | 'failed' | 'running' | 'ready' | 'expired';

/** The paging parameters of the lists that page by cursor. `PaginationQuerySchema` of @boxoffice/contract. */
export interface PageParams {
  /** The page to start at, from 1 (1 when absent). Not with `cursor`. */
  page?: string | number | undefined;
  /** Items per page, 1–100 (default 20). */
  limit?: string | number | undefined;
  /**
   * The `next_cursor` of an earlier page: continues that walk, with the same filters, after its
   * last item. Not with `page`.
   */
  cursor?: string | undefined;
}

/** `EventSchema` of @boxoffice/contract, as the API returns it. */
export interface Event {
  /** The event's id, `evt_…`. */
  id: string;
  /** The event's name, 1–200 characters. */
  name: string;
  /** Free text about the event, or `null`. */
  description: string | null;
  /** Where it takes place, or `null`. */
  venue: string | null;
  /** The IANA time zone of the venue, e.g. `Europe/London`: local times are shown in it. */
  timezone: string;
  /** When the event starts (ISO-8601, UTC). */
  starts_at: string;
  /** When the event ends (ISO-8601, UTC); always after `starts_at`. */
  ends_at: string;
  /** When the doors open (ISO-8601, UTC), or `null`. */
  doors_open_at: string | null;
  /** The ISO 4217 currency of its tiers' prices, e.g. `GBP`; fixed once it has tiers. */
  currency: string;
  /** How many people the venue holds, or `null` for no stated limit. */
  capacity: number | null;
  /**
   * `draft`, `published`, `completed` or `cancelled`: `draft → published → completed`, or
   * `cancelled` from `draft` or `published`. `completed` and `cancelled` are final.
   */
  status: EventStatus;
  /** When the event was published, or `null`. Set by the server. */
  published_at: string | null;
  /** When the event was cancelled, or `null`. Set by the server. */
  cancelled_at: string | null;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `EventListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface EventListParams extends PageParams {
  /** Only events starting at or after this time (ISO-8601 or a `Date`). */
  starts_after?: string | Date | undefined;
  /** Only events starting before this time (ISO-8601 or a `Date`). */
  starts_before?: string | Date | undefined;
  /** Only events whose name contains this text, ignoring case. */
  q?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: EventStatus | undefined | Array<EventStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `EventCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface EventCreateParams {
  /** The event's name, 1–200 characters (trimmed). */
  name: string;
  /** An IANA time zone name, e.g. `Europe/London` (any case; stored canonical). */
  timezone: string;
  /** When the event starts: ISO-8601 with an offset, e.g. `2026-06-01T19:00:00+01:00`. */
  starts_at: string;
  /** When the event ends: ISO-8601 with an offset; must be after `starts_at`. */
  ends_at: string;
  /** An ISO 4217 code in upper case, e.g. `GBP`; cannot change once the event has tiers. */
  currency: string;
  /** Free text about the event, up to 5,000 characters, or `null` (the default). */
  description?: string | null | undefined;
  /** Where it takes place, up to 500 characters, or `null` (the default). */
  venue?: string | null | undefined;
  /** When the doors open: ISO-8601 with an offset, or `null` (the default). */
  doors_open_at?: string | null | undefined;
  /** How many people the venue holds (1–10,000,000), or `null` (the default). */
  capacity?: number | null | undefined;
  /** `draft` (the default) or `published`. */
  status?: 'draft' | 'published' | undefined;
}

/** `EventUpdateSchema` of @boxoffice/contract, as the API accepts it. */
export interface EventUpdateParams {
  /** The event's name, 1–200 characters (trimmed). */
  name?: string | undefined;
  /** Free text about the event, up to 5,000 characters, or `null`. */
  description?: string | null | undefined;
  /** Where it takes place, up to 500 characters, or `null`. */
  venue?: string | null | undefined;
  /** An IANA time zone name, e.g. `Europe/London` (any case; stored canonical). */
  timezone?: string | undefined;
  /** When the event starts: ISO-8601 with an offset, e.g. `2026-06-01T19:00:00+01:00`. */
  starts_at?: string | undefined;
  /** When the event ends: ISO-8601 with an offset; must be after `starts_at`. */
  ends_at?: string | undefined;
  /** When the doors open: ISO-8601 with an offset, or `null`. */
  doors_open_at?: string | null | undefined;
  /** An ISO 4217 code in upper case, e.g. `GBP`; cannot change once the event has tiers. */
  currency?: string | undefined;
  /** How many people the venue holds (1–10,000,000), or `null`. */
  capacity?: number | null | undefined;
  /**
   * A new status: `draft → published → completed`, or `cancelled` from `draft` or `published`;
   * any other change is a 409.
   */
  status?: EventStatus | undefined;
}

/** `TierSchema` of @boxoffice/contract, as the API returns it. */
export interface Tier {
  /** The tier's id, `tier_…`. */
  id: string;
  /** The event it sells tickets for, `evt_…`. */
  event_id: string;
  /** The tier's name, e.g. `General admission`. */
  name: string;
  /** Free text about the tier, or `null`. */
  description: string | null;
  /** The price of one ticket in minor units of `currency` (2500 is £25.00). */
  price: number;
  /** The event's currency (ISO 4217). Set by the server. */
  currency: string;
  /** How many tickets the tier has, or `null` for unlimited. */
  quantity_total: number | null;
  /**
   * How many tickets have been sold (cancelled and refunded orders give theirs back). Set by the
   * server.
   */
  quantity_sold: number;
  /** `quantity_total - quantity_sold`, or `null` when unlimited. Set by the server. */
  quantity_available: number | null;
  /** The most tickets of this tier one order may have, or `null` for no limit. */
  max_per_order: number | null;
  /** When sales open (ISO-8601, UTC), or `null` for at once. */
  sales_start_at: string | null;
  /** When sales close (ISO-8601, UTC), or `null` for when the event starts. */
  sales_end_at: string | null;
  /** Where the tier comes in lists: lowest first, then by id. */
  sort_order: number;
  /**
   * `on_sale`, `paused`, `hidden` or `sold_out` (shown by the server while an `on_sale` tier has
   * nothing left).
   */
  status: TierStatus;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `TierListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface TierListParams extends PageParams {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: TierStatus | undefined | Array<TierStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `TierCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface TierCreateParams {
  /** The event to add the tier to, `evt_…`; an unknown one is a 422. */
  event_id: string;
  /** The tier's name, 1–200 characters (trimmed). */
  name: string;
  /**
   * The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).
   */
  price: number;
  /** Free text about the tier, up to 5,000 characters, or `null` (the default). */
  description?: string | null | undefined;
  /** How many tickets the tier has; `null` (the default) for unlimited. */
  quantity_total?: number | null | undefined;
  /**
   * The most tickets of this tier one order may have (1–1,000); `null` (the default) for no
   * limit.
   */
  max_per_order?: number | null | undefined;
  /** When sales open: ISO-8601 with an offset; `null` (the default) for at once. */
  sales_start_at?: string | null | undefined;
  /**
   * When sales close: ISO-8601 with an offset, after `sales_start_at`; `null` (the default) for
   * none.
   */
  sales_end_at?: string | null | undefined;
  /** Where the tier comes in lists, lowest first; default 0. */
  sort_order?: number | undefined;
  /** `on_sale` (the default), `paused` or `hidden`. */
  status?: WritableTierStatus | undefined;
}

/** `TierUpdateSchema` of @boxoffice/contract, as the API accepts it. */
export interface TierUpdateParams {
  /** The tier's name, 1–200 characters (trimmed). */
  name?: string | undefined;
  /** Free text about the tier, up to 5,000 characters, or `null`. */
  description?: string | null | undefined;
  /**
   * The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).
   */
  price?: number | undefined;
  /**
   * How many tickets the tier has, or `null` for unlimited; lowering it below `quantity_sold` is a
   * 409.
   */
  quantity_total?: number | null | undefined;
  /** The most tickets of this tier one order may have (1–1,000), or `null` for no limit. */
  max_per_order?: number | null | undefined;
  /** When sales open: ISO-8601 with an offset, or `null` for at once. */
  sales_start_at?: string | null | undefined;
  /** When sales close: ISO-8601 with an offset, after `sales_start_at`; or `null`. */
  sales_end_at?: string | null | undefined;
  /** Where the tier comes in lists, lowest first (-1,000,000 to 1,000,000). */
  sort_order?: number | undefined;
  /** `on_sale`, `paused` or `hidden` (`sold_out` is the server's to set). */
  status?: WritableTierStatus | undefined;
}

/** `OrderSchema` of @boxoffice/contract, as the API returns it. */
export interface Order {
  /** The order's id, `ord_…`. */
  id: string;
  /** The reference the buyer sees, e.g. `BX-7K3Q9P`. */
  reference: string;
  /** The event the order is for, `evt_…`. */
  event_id: string;
  /** The buyer's name. */
  buyer_name: string;
  /** The buyer's email address. */
  buyer_email: string;
  /**
   * `pending`, `completed`, `cancelled` or `refunded`; cancelling or refunding voids the order's
   * tickets.
   */
  status: OrderStatus;
  /** The tickets' prices, in minor units of `currency`. */
  subtotal: number;
  /** Booking fees, in minor units. */
  fees: number;
  /** `subtotal + fees`, in minor units: what the buyer paid. */
  total: number;
  /** What has been refunded, in minor units. */
  refunded_amount: number;
  /** The ISO 4217 currency of the amounts. */
  currency: string;
  /** How many tickets the order has. */
  ticket_count: number;
  /** When the buyer placed the order (ISO-8601, UTC). */
  placed_at: string;
  /** When payment was received (ISO-8601, UTC), or `null`. */
  paid_at: string | null;
  /** When the order was cancelled (ISO-8601, UTC), or `null`. */
  cancelled_at: string | null;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `OrderListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface OrderListParams extends PageParams {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: OrderStatus | undefined | Array<OrderStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
  /** Only orders whose buyer has this email address, ignoring case. */
  email?: string | undefined;
  /** Only the order with this reference, exactly. */
  reference?: string | undefined;
}

/** `TicketSchema` of @boxoffice/contract, as the API returns it. */
export interface Ticket {
  /** The ticket's id, `tkt_…`. */
  id: string;
  /** The order it was bought in, `ord_…`. */
  order_id: string;
  /** The event it admits to, `evt_…`. */
  event_id: string;
  /** Its tier, `tier_…`. */
  tier_id: string;
  /** Who holds it, `att_…`. */
  attendee_id: string;
  /** The barcode secret: 24 random base62 characters. Scan it with `checkins.create({ code })`. */
  code: string;
  /** `valid`, `checked_in` (inside now) or `void` (its order was cancelled or refunded). */
  status: TicketStatus;
  /** What it cost, in minor units of `currency`. */
  price: number;
  /** The ISO 4217 currency of `price`. */
  currency: string;
  /** When the current admission was scanned (ISO-8601, UTC), or `null`; cleared on exit. */
  checked_in_at: string | null;
  /** When it became void (ISO-8601, UTC), or `null`. */
  voided_at: string | null;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `TicketListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface TicketListParams extends PageParams {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: TicketStatus | undefined | Array<TicketStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
  /** Only the tickets of this order (`ord_…`). */
  order_id?: string | undefined;
  /** Only the tickets of this tier (`tier_…`). */
  tier_id?: string | undefined;
  /** Only the ticket with this barcode secret: how a scanned code is looked up. */
  code?: string | undefined;
}

/** `AttendeeSchema` of @boxoffice/contract, as the API returns it. */
export interface Attendee {
  /** The attendee's id, `att_…`. */
  id: string;
  /** Their ticket, `tkt_…`. */
  ticket_id: string;
  /** The order their ticket was bought in, `ord_…`. */
  order_id: string;
  /** The event, `evt_…`. */
  event_id: string;
  /** First name, as given at checkout. */
  first_name: string;
  /** Last name, as given at checkout. */
  last_name: string;
  /** Email address, or `null`. */
  email: string | null;
  /** Company, or `null`. */
  company: string | null;
  /** Their answers to the checkout's questions, in order. */
  answers: Array<{
    /** The question asked at checkout. */
    question: string;
    /** The attendee's answer. */
    answer: string;
  }>;
  /** Whether their ticket is checked in now (it changes with each check-in, with `updated_at`). */
  checked_in: boolean;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `AttendeeListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface AttendeeListParams extends PageParams {
  /** Only the attendees of this order (`ord_…`). */
  order_id?: string | undefined;
  /** Only the attendee of this ticket (`tkt_…`). */
  ticket_id?: string | undefined;
  /** Only attendees with this email address, ignoring case. */
  email?: string | undefined;
  /** Only attendees inside (`true`) or not inside (`false`) now. */
  checked_in?: boolean | 'true' | 'false' | undefined;
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `CheckinSchema` of @boxoffice/contract, as the API returns it. */
export interface Checkin {
  /** The check-in's id, `chk_…`. */
  id: string;
  /** The ticket scanned, `tkt_…`. */
  ticket_id: string;
  /** The ticket's attendee, `att_…`. */
  attendee_id: string;
  /** The ticket's event, `evt_…`. */
  event_id: string;
  /** `entry` (admitted) or `exit` (let out). */
  direction: CheckinDirection;
  /** The gate it was scanned at, or `null`. */
  gate: string | null;
  /** The scanner that sent it, or `null`. */
  device_id: string | null;
  /**
   * When the door scanned it (ISO-8601, UTC); the time the server received it, unless the scanner
   * said.
   */
  scanned_at: string;
  /** The API key that recorded it, or `null`. Set by the server. */
  api_key_id: string | null;
  /** When the server received it (ISO-8601, UTC); `since` filters on it. */
  created_at: string;
  /** Equal to `created_at`: check-ins never change. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `CheckinListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinListParams extends PageParams {
  /** Only the check-ins of this ticket (`tkt_…`). */
  ticket_id?: string | undefined;
  /** Only `entry` or only `exit` check-ins (or an array of both). */
  direction?: CheckinDirection | undefined | Array<CheckinDirection>;
  /** Only the check-ins at this gate. */
  gate?: string | undefined;
  /**
   * Only check-ins the server received at or after this time (ISO-8601 or a `Date`): for syncing.
   * Pass the `sync_checkpoint` of the previous walk.
   */
  since?: string | Date | undefined;
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
}

/** `CheckinCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinCreateFields {
  /** The ticket, by id (`tkt_…`). Give exactly one of `ticket_id` and `code`. */
  ticket_id?: string | undefined;
  /** The ticket, by its scanned barcode secret. Give exactly one of `ticket_id` and `code`. */
  code?: string | undefined;
  /** The door's event (`evt_…`): a ticket of another event is then a 422 instead of admitted. */
  event_id?: string | undefined;
  /** `entry` (the default) admits a valid ticket; `exit` lets a checked-in one out. */
  direction?: CheckinDirection | undefined;
  /** The gate, 1–100 characters (trimmed). */
  gate?: string | undefined;
  /** The scanner, 1–100 characters (trimmed). */
  device_id?: string | undefined;
  /**
   * When the door scanned (ISO-8601 with an offset), for scans sent late; defaults to when the
   * server receives it.
   */
  scanned_at?: string | undefined;
}

/** `CheckinBatchItemSchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinBatchItemFields extends CheckinCreateFields {
  /**
   * The scan's own idempotency key, 1–255 characters, unique per scan (a door makes one when it
   * scans): a batch re-sent after a lost answer gives this item the answer it had the first time
   * (whatever it was) instead of recording it again. Keys belong to the API key, apart from
   * `Idempotency-Key` headers.
   */
  idempotency_key?: string | undefined;
}

/** `CheckinBatchResultSchema` of @boxoffice/contract, as the API returns it. */
export interface CheckinBatchResult {
  /**
   * `201` recorded; `404` no such ticket; `409` refused by the ticket's state (`code` says which:
   * `already_checked_in`, `ticket_void`, `not_checked_in`), or the scan's `idempotency_key` in use
   * by a request still running (`idempotency_in_flight`); `422` a ticket of another event
   * (`wrong_event`), or an `idempotency_key` used before with another scan
   * (`idempotency_key_reused`).
   */
  status: 201 | 404 | 409 | 422;
  /** The check-in recorded (with a 201), else `null`. */
  data: null | Checkin;
  /** Why it was refused, for people; absent with a 201. */
  error?: string | undefined;
  /** The kind of refusal, for programs (`already_checked_in`, …); absent with a 201. */
  code?: string | undefined;
  /**
   * With `already_checked_in`: the check-in that admitted the ticket (its `scanned_at`, `gate` and
   * `device_id` say when and where), so the door can say so.
   */
  admission?: undefined | Checkin;
  /** `true` when the item's `idempotency_key` was seen before and this is that first answer. */
  replayed: boolean;
}

/** `PayoutSchema` of @boxoffice/contract, as the API returns it. */
export interface Payout {
  /** The payout's id, `po_…`. */
  id: string;
  /** The event it pays out for, or `null` for several. */
  event_id: string | null;
  /** Sales in the period, in minor units of `currency`. */
  gross_amount: number;
  /** Fees deducted, in minor units. */
  fees_amount: number;
  /** Refunds deducted, in minor units. */
  refunds_amount: number;
  /** What is paid: `gross_amount - fees_amount - refunds_amount`, in minor units. */
  amount: number;
  /** The ISO 4217 currency of the amounts. */
  currency: string;
  /**
   * `pending → in_transit → paid`; or `cancelled` (from `pending`), `failed` (from `in_transit`).
   */
  status: PayoutStatus;
  /** The start of the sales period it covers (ISO-8601, UTC). */
  period_start: string;
  /** The end of the sales period it covers (ISO-8601, UTC). */
  period_end: string;
  /** The calendar date the money is expected (`YYYY-MM-DD`), or `null`. */
  arrival_date: string | null;
  /** When it was paid (ISO-8601, UTC), or `null`. */
  paid_at: string | null;
  /** Why it failed, or `null`. */
  failure_reason: string | null;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `PayoutListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface PayoutListParams extends PageParams {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: PayoutStatus | undefined | Array<PayoutStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `WebhookEndpointSchema` of @boxoffice/contract, as the API returns it. */
export interface WebhookEndpoint {
  /** The endpoint's id, `we_…`. */
  id: string;
  /** Where changes are sent: an https URL that accepts POST requests. */
  url: string;
  /** A note of the organisation's on what the endpoint is for. */
  description: string | null;
  /** The event types sent to it, or `["*"]` for every type. */
  events: Array<WebhookSubscription>;
  /** `enabled`, or `disabled` (nothing is sent). */
  status: WebhookEndpointStatus;
  /** Why the endpoint is disabled: by request, or after failing for about three days. */
  disabled_reason: string | null;
  /** When the endpoint was registered. */
  created_at: string;
  /** When the endpoint was last changed. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `WebhookEndpointWithSecretSchema` of @boxoffice/contract, as the API returns it. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** The signing secret (`whsec_…`): shown when the endpoint is created; keep it safe. */
  secret: string;
}

/** `WebhookEndpointListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface WebhookEndpointListParams {
  /** The page to start at, from 1 (1 when absent). Not with `cursor`. */
  page?: string | number | undefined;
  /** Items per page, 1–100 (default 20). */
  limit?: string | number | undefined;
}

/** `WebhookEndpointCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface WebhookEndpointCreateParams {
  /** An https URL that accepts POST requests. */
  url: string;
  /** Event types to receive, or `["*"]` (the default) for all. */
  events?: undefined | Array<WebhookSubscription>;
  /** A note on what the endpoint is for. */
  description?: string | null | undefined;
}

/** `WebhookEndpointUpdateSchema` of @boxoffice/contract, as the API accepts it. */
export interface WebhookEndpointUpdateParams {
  /** A new https URL. */
  url?: string | undefined;
  /** The event types to receive from now on, or `["*"]` for all. */
  events?: undefined | Array<WebhookSubscription>;
  /** A new note, or `null` for none. */
  description?: string | null | undefined;
  /** `disabled` stops the deliveries; `enabled` starts them again. */
  status?: WebhookEndpointStatus | undefined;
}

/** `ExportSchema` of @boxoffice/contract, as the API returns it. */
export interface Export {
  /** The export's id, `exp_…`. */
  id: string;
  /** Which list it copies. */
  resource: ExportResource;
  /**
   * The filters it was made with, as the server read them: status lists as arrays, times in UTC,
   * booleans as `true`/`false`; `{}` for none.
   */
  filters: Record<string, unknown>;
  /** `ndjson` or `csv`. */
  format: ExportFormat;
  /** `pending`, `running`, `ready`, `failed` or `expired`. */
  status: ExportStatus;
  /** How many objects the file holds, once `ready` (`null` before). */
  row_count: number | null;
  /** The file's size in bytes, uncompressed, once `ready` (`null` before). */
  size_bytes: number | null;
  /**
   * Where the next sync starts, once `ready`: pass it as the list's `updated_since` (`since` for
   * check-ins) to get every change committed after the export's snapshot. A cursor walk begun at
   * the snapshot's moment would give the same.
   */
  sync_checkpoint: string | null;
  /** When it became `ready` or `failed` (ISO-8601, UTC), or `null`. */
  completed_at: string | null;
  /** When the file is removed (ISO-8601, UTC): set once `ready`, else `null`. */
  expires_at: string | null;
  /** Why it failed, or `null`. */
  failure_reason: string | null;
  /** When it was created (ISO-8601, UTC). */
  created_at: string;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: string;
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: boolean;
}

/** `ExportListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface ExportListParams extends PageParams {
  /** Only exports in one of these statuses: one, or an array of several. */
  status?: ExportStatus | undefined | Array<ExportStatus>;
  /** Only exports of these resources: one, or an array of several. */
  resource?: ExportResource | undefined | Array<ExportResource>;
}

/** `EventExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface EventExportFilters {
  /** Only events starting at or after this time (ISO-8601 or a `Date`). */
  starts_after?: string | Date | undefined;
  /** Only events starting before this time (ISO-8601 or a `Date`). */
  starts_before?: string | Date | undefined;
  /** Only events whose name contains this text, ignoring case. */
  q?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: EventStatus | undefined | Array<EventStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `TierExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface TierExportFilters {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: TierStatus | undefined | Array<TierStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `OrderExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface OrderExportFilters {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: OrderStatus | undefined | Array<OrderStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
  /** Only orders whose buyer has this email address, ignoring case. */
  email?: string | undefined;
  /** Only the order with this reference, exactly. */
  reference?: string | undefined;
}

/** `TicketExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface TicketExportFilters {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: TicketStatus | undefined | Array<TicketStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
  /** Only the tickets of this order (`ord_…`). */
  order_id?: string | undefined;
  /** Only the tickets of this tier (`tier_…`). */
  tier_id?: string | undefined;
  /** Only the ticket with this barcode secret: how a scanned code is looked up. */
  code?: string | undefined;
}

/** `AttendeeExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface AttendeeExportFilters {
  /** Only the attendees of this order (`ord_…`). */
  order_id?: string | undefined;
  /** Only the attendee of this ticket (`tkt_…`). */
  ticket_id?: string | undefined;
  /** Only attendees with this email address, ignoring case. */
  email?: string | undefined;
  /** Only attendees inside (`true`) or not inside (`false`) now. */
  checked_in?: boolean | 'true' | 'false' | undefined;
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `CheckinExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinExportFilters {
  /** Only the check-ins of this ticket (`tkt_…`). */
  ticket_id?: string | undefined;
  /** Only `entry` or only `exit` check-ins (or an array of both). */
  direction?: CheckinDirection | undefined | Array<CheckinDirection>;
  /** Only the check-ins at this gate. */
  gate?: string | undefined;
  /**
   * Only check-ins the server received at or after this time (ISO-8601 or a `Date`): for syncing.
   * Pass the `sync_checkpoint` of the previous walk.
   */
  since?: string | Date | undefined;
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
}

/** `PayoutExportFiltersSchema` of @boxoffice/contract, as the API accepts it. */
export interface PayoutExportFilters {
  /** Only the items of this event (`evt_…`). */
  event_id?: string | undefined;
  /** Only items in one of these statuses: one, or an array of several. */
  status?: PayoutStatus | undefined | Array<PayoutStatus>;
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since?: string | Date | undefined;
}

/** `TestOrderSchema` of @boxoffice/contract, as the API returns it. */
export interface TestOrder extends Order {
  /** The order's tickets, each with its barcode secret (`code`), ready to be checked in. */
  tickets: Array<Ticket>;
  /** The tickets' attendees, in the order of `tickets`. */
  attendees: Array<Attendee>;
}

/** `TestOrderCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface TestOrderCreateParams {
  /** The event, `evt_…`: a published one of the test data (an unknown one is a 422). */
  event_id: string;
  /** The ticket tier to sell, `tier_…`, of that event; on sale now. */
  tier_id: string;
  /** How many tickets: 1 to 20, and at most the tier's `max_per_order` and what is left. */
  quantity: number;
  /** The buyer's name, 1–200 characters (default `Test Buyer`); the attendee of each ticket. */
  buyer_name?: string | undefined;
  /** The buyer's email address (default `test.buyer@example.com`). */
  buyer_email?: string | undefined;
}

/** `TestPayoutAdvanceSchema` of @boxoffice/contract, as the API accepts it. */
export interface TestPayoutAdvanceParams {
  /**
   * `true` fails the payout instead of paying it (a pending one by way of `in_transit`), with a
   * `failure_reason`. Default `false`.
   */
  fail?: boolean | undefined;
}

/** `TestDataResetSchema` of @boxoffice/contract, as the API returns it. */
export interface TestDataReset {
  /** Events of the new sample data. */
  events: number;
  /** Ticket tiers of the new sample data. */
  tiers: number;
  /** Orders of the new sample data. */
  orders: number;
  /** Tickets of the new sample data. */
  tickets: number;
  /** Attendees of the new sample data. */
  attendees: number;
  /** Check-ins of the new sample data. */
  checkins: number;
  /** Payouts of the new sample data. */
  payouts: number;
}
