// Generated from @boxoffice/contract by scripts/generate-types.mjs: do not edit, run
// `pnpm --filter @boxoffice/sdk run generate:types` after changing the contract.

/** `EventSchema` of @boxoffice/contract, as the API returns it. */
export interface Event {
  id: string;
  name: string;
  description: string | null;
  venue: string | null;
  timezone: string;
  starts_at: string;
  ends_at: string;
  doors_open_at: string | null;
  currency: string;
  capacity: number | null;
  status: 'draft' | 'published' | 'completed' | 'cancelled';
  published_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `EventListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface EventListParams {
  status?:
    | 'draft'
    | 'published'
    | 'completed'
    | 'cancelled'
    | undefined
    | Array<'draft' | 'published' | 'completed' | 'cancelled'>;
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  starts_after?: string | Date | undefined;
  starts_before?: string | Date | undefined;
  updated_since?: string | Date | undefined;
  q?: string | undefined;
}

/** `EventCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface EventCreateParams {
  name: string;
  timezone: string;
  starts_at: string;
  ends_at: string;
  currency: string;
  description?: string | null | undefined;
  venue?: string | null | undefined;
  doors_open_at?: string | null | undefined;
  capacity?: number | null | undefined;
  status?: 'draft' | 'published' | undefined;
}

/** `EventUpdateSchema` of @boxoffice/contract, as the API accepts it. */
export interface EventUpdateParams {
  name?: string | undefined;
  description?: string | null | undefined;
  venue?: string | null | undefined;
  timezone?: string | undefined;
  starts_at?: string | undefined;
  ends_at?: string | undefined;
  doors_open_at?: string | null | undefined;
  currency?: string | undefined;
  capacity?: number | null | undefined;
  status?: 'draft' | 'published' | 'completed' | 'cancelled' | undefined;
}

/** `TierSchema` of @boxoffice/contract, as the API returns it. */
export interface Tier {
  id: string;
  name: string;
  description: string | null;
  currency: string;
  status: 'on_sale' | 'paused' | 'hidden' | 'sold_out';
  created_at: string;
  updated_at: string;
  event_id: string;
  price: number;
  quantity_total: number | null;
  quantity_sold: number;
  quantity_available: number | null;
  max_per_order: number | null;
  sales_start_at: string | null;
  sales_end_at: string | null;
  sort_order: number;
}

/** `TierListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface TierListParams {
  status?:
    | 'on_sale'
    | 'paused'
    | 'hidden'
    | 'sold_out'
    | undefined
    | Array<'on_sale' | 'paused' | 'hidden' | 'sold_out'>;
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  updated_since?: string | Date | undefined;
  event_id?: string | undefined;
}

/** `TierCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface TierCreateParams {
  name: string;
  event_id: string;
  price: number;
  description?: string | null | undefined;
  status?: 'on_sale' | 'paused' | 'hidden' | undefined;
  quantity_total?: number | null | undefined;
  max_per_order?: number | null | undefined;
  sales_start_at?: string | null | undefined;
  sales_end_at?: string | null | undefined;
  sort_order?: number | undefined;
}

/** `TierUpdateSchema` of @boxoffice/contract, as the API accepts it. */
export interface TierUpdateParams {
  name?: string | undefined;
  description?: string | null | undefined;
  status?: 'on_sale' | 'paused' | 'hidden' | undefined;
  price?: number | undefined;
  quantity_total?: number | null | undefined;
  max_per_order?: number | null | undefined;
  sales_start_at?: string | null | undefined;
  sales_end_at?: string | null | undefined;
  sort_order?: number | undefined;
}

/** `OrderSchema` of @boxoffice/contract, as the API returns it. */
export interface Order {
  id: string;
  currency: string;
  status: 'completed' | 'cancelled' | 'pending' | 'refunded';
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
  event_id: string;
  reference: string;
  buyer_name: string;
  buyer_email: string;
  subtotal: number;
  fees: number;
  total: number;
  refunded_amount: number;
  ticket_count: number;
  placed_at: string;
  paid_at: string | null;
}

/** `OrderListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface OrderListParams {
  status?:
    | 'completed'
    | 'cancelled'
    | 'pending'
    | 'refunded'
    | undefined
    | Array<'completed' | 'cancelled' | 'pending' | 'refunded'>;
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  updated_since?: string | Date | undefined;
  event_id?: string | undefined;
  reference?: string | undefined;
  email?: string | undefined;
}

/** `TicketSchema` of @boxoffice/contract, as the API returns it. */
export interface Ticket {
  id: string;
  currency: string;
  status: 'valid' | 'void' | 'checked_in';
  created_at: string;
  updated_at: string;
  code: string;
  event_id: string;
  price: number;
  order_id: string;
  tier_id: string;
  attendee_id: string;
  checked_in_at: string | null;
  voided_at: string | null;
}

/** `TicketListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface TicketListParams {
  status?: 'valid' | 'void' | 'checked_in' | undefined | Array<'valid' | 'void' | 'checked_in'>;
  code?: string | undefined;
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  updated_since?: string | Date | undefined;
  event_id?: string | undefined;
  order_id?: string | undefined;
  tier_id?: string | undefined;
}

/** `AttendeeSchema` of @boxoffice/contract, as the API returns it. */
export interface Attendee {
  id: string;
  created_at: string;
  updated_at: string;
  event_id: string;
  email: string | null;
  order_id: string;
  checked_in: boolean;
  ticket_id: string;
  first_name: string;
  last_name: string;
  company: string | null;
  answers: Array<{
    question: string;
    answer: string;
  }>;
}

/** `AttendeeListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface AttendeeListParams {
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  updated_since?: string | Date | undefined;
  event_id?: string | undefined;
  email?: string | undefined;
  order_id?: string | undefined;
  checked_in?: boolean | 'true' | 'false' | undefined;
  ticket_id?: string | undefined;
}

/** `CheckinSchema` of @boxoffice/contract, as the API returns it. */
export interface Checkin {
  id: string;
  created_at: string;
  updated_at: string;
  event_id: string;
  attendee_id: string;
  ticket_id: string;
  direction: 'entry' | 'exit';
  gate: string | null;
  device_id: string | null;
  scanned_at: string;
  api_key_id: string | null;
}

/** `CheckinListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinListParams {
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  event_id?: string | undefined;
  ticket_id?: string | undefined;
  direction?: 'entry' | 'exit' | undefined | Array<'entry' | 'exit'>;
  gate?: string | undefined;
  since?: string | Date | undefined;
}

/** `CheckinCreateSchema` of @boxoffice/contract, as the API accepts it. */
export interface CheckinCreateFields {
  code?: string | undefined;
  event_id?: string | undefined;
  ticket_id?: string | undefined;
  direction?: 'entry' | 'exit' | undefined;
  gate?: string | undefined;
  device_id?: string | undefined;
  scanned_at?: string | undefined;
}

/** `PayoutSchema` of @boxoffice/contract, as the API returns it. */
export interface Payout {
  id: string;
  currency: string;
  status: 'cancelled' | 'pending' | 'in_transit' | 'paid' | 'failed';
  created_at: string;
  updated_at: string;
  event_id: string | null;
  paid_at: string | null;
  gross_amount: number;
  fees_amount: number;
  refunds_amount: number;
  amount: number;
  period_start: string;
  period_end: string;
  arrival_date: string | null;
  failure_reason: string | null;
}

/** `PayoutListQuerySchema` of @boxoffice/contract, as the API accepts it. */
export interface PayoutListParams {
  status?:
    | 'cancelled'
    | 'pending'
    | 'in_transit'
    | 'paid'
    | 'failed'
    | undefined
    | Array<'cancelled' | 'pending' | 'in_transit' | 'paid' | 'failed'>;
  page?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
  updated_since?: string | Date | undefined;
  event_id?: string | undefined;
}
